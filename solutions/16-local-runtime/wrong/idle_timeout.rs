//! Wrong: `serve` stops on its own after 30 s with no request and nothing in flight, "to
//! free resources", though its channel is still open. The next client's `send` then
//! fails: the server has gone while its callers still hold the way to reach it. A server
//! returns when its channel closes, however long the quiet. The test leaves the channel
//! open and idle for ten minutes of virtual time, then sends another request.
//! expect-fail: an_idle_serve_waits_quietly_for_the_next_request
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    const IDLE: std::time::Duration = std::time::Duration::from_secs(30);
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
            _ = tokio::time::sleep(IDLE), if tasks.is_empty() => break, // quiet: stop
        }
    }
    tasks.join_all().await;
}
