//! Wrong: each task gets a copy of the cache's entries, taken as `serve` starts it, "so
//! that no task shares anything while it runs"; counts and new entries go back into the
//! shared cache. Every answer is right, and with a small cache it is quick; but every
//! request copies the whole cache, so its cost grows with the cache: with 100,000 entries
//! a hit allocates megabytes. The test fills the cache with 100,000 entries and counts
//! the bytes a hit allocates.
//! expect-fail: a_hit_costs_the_same_in_a_big_cache
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                let entries = cache.borrow().entries.clone(); // a copy of its own
                tasks.spawn_local(async move {
                    let value = match entries.get(&request.key) {
                        Some(value) => {
                            cache.borrow_mut().hits += 1;
                            value.clone()
                        }
                        None => {
                            cache.borrow_mut().misses += 1;
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
