//! Wrong: the right loop while the channel is open, but once it has closed, a `join_next`
//! loop that keeps the first panic and lets the other requests finish before passing it
//! on, "to be graceful". The panic of a bug waits for the slowest request, and requests
//! that a crashed server should have stopped run to the end. The test closes the channel
//! while a request that ends after the panic is still loading.
//! expect-fail: a_panic_in_a_request_reaches_whoever_awaits_serve
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
    let mut failed = None;
    while let Some(done) = tasks.join_next().await {
        if let Err(error) = done {
            failed.get_or_insert(error); // passed on once the others are done
        }
    }
    if let Some(error) = failed {
        std::panic::resume_unwind(error.into_panic());
    }
}
