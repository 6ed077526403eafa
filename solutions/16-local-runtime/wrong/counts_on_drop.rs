//! Wrong: hits and misses are counted in `Cell`s of `serve`'s own, and a guard adds them
//! to the cache's counts when `serve` ends (returns, panics or is dropped), "to touch
//! the shared cache less often". Whenever `serve` has ended, the counts are right; but a
//! server runs for days, and until then anyone who reads the cache's counts sees none.
//! The test reads them after 200 answers, while `serve` is still running.
//! expect-fail: memory_stays_flat_however_many_requests_are_served
//! replaces: service

/// Hits and misses, counted away from the cache.
#[derive(Default)]
struct Counts {
    hits: std::cell::Cell<u64>,
    misses: std::cell::Cell<u64>,
}

/// Adds the counts to the cache's when `serve` ends, however it ends.
struct Flush {
    counts: Rc<Counts>,
    cache: Rc<RefCell<Cache>>,
}

impl Drop for Flush {
    fn drop(&mut self) {
        let mut cache = self.cache.borrow_mut();
        cache.hits += self.counts.hits.get();
        cache.misses += self.counts.misses.get();
    }
}

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let counts = Rc::new(Counts::default());
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    // Declared after the set, so dropped before it: the set's tasks still hold `counts`.
    let _flush = Flush {
        counts: Rc::clone(&counts),
        cache: Rc::clone(&cache),
    };
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                let counts = Rc::clone(&counts);
                tasks.spawn_local(async move {
                    let found = cache.borrow().entries.get(&request.key).cloned();
                    let value = match found {
                        Some(value) => {
                            counts.hits.set(counts.hits.get() + 1);
                            value
                        }
                        None => {
                            counts.misses.set(counts.misses.get() + 1);
                            let value = backend.load(request.key).await;
                            cache.borrow_mut().entries.insert(request.key, value.clone());
                            value
                        }
                    };
                    let _ = request.reply.send(value);
                });
            }
            Some(done) = tasks.join_next() => {
                if let Err(error) = done {
                    std::panic::resume_unwind(error.into_panic());
                }
            }
        }
    }
    tasks.join_all().await;
}
