//! Wrong: `serve` counts every request as a miss the moment it takes it, and the task
//! turns it into a hit if the key is cached. The totals come out right in the end, but
//! in between the counts say a hit was a miss, to anyone who reads them while the
//! request's task has not run yet; and the count is made in `serve`'s loop, not where
//! the cache is looked up. A request is counted once, as what it is, by its own task.
//! The test polls `serve` once with two requests waiting, and reads the counts before
//! any task has run.
//! expect-fail: every_request_is_a_task_of_its_own
//! replaces: service

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
                cache.borrow_mut().misses += 1; // a miss until the task knows better
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                tasks.spawn_local(async move {
                    let value = lookup(&*backend, &cache, request.key).await;
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

async fn lookup<B: Backend>(backend: &B, cache: &RefCell<Cache>, key: u32) -> String {
    let found = {
        let mut cache = cache.borrow_mut();
        let value = cache.entries.get(&key).cloned();
        if value.is_some() {
            cache.misses -= 1; // it was a hit after all
            cache.hits += 1;
        }
        value
    };
    if let Some(value) = found {
        return value;
    }
    let value = backend.load(key).await;
    cache.borrow_mut().entries.insert(key, value.clone());
    value
}
