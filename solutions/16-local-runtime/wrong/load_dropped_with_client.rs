//! Wrong: stops a load as soon as its client stops waiting (`select!` on the load and on
//! `reply.closed()`), to save the backend's work. But the value was a miss the cache still
//! lacks: the next request for the same key finds nothing and loads it all over again. A
//! load once started is finished and cached. The test's first client for a key gives up
//! in the middle of the load; the next asks for the key after the load would have ended.
//! expect-fail: a_load_whose_client_left_still_counts_and_is_cached
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
                tasks.spawn_local(async move {
                    let mut reply = request.reply;
                    tokio::select! {
                        value = lookup(&*backend, &cache, request.key) => {
                            let _ = reply.send(value);
                        }
                        () = reply.closed() => {} // nobody waits any more: stop loading
                    }
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
