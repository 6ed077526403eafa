//! Wrong: the right loop, made `biased;` with the channel's branch first, "a waiting
//! client matters more than bookkeeping". `select!` then looks at the tasks only when no
//! request is ready. Under a steady flood the channel is never empty when `serve` looks:
//! it takes request after request, collects no finished task, and a request's panic waits
//! unseen until the flood ends (every finished task waits too, in memory). The test keeps
//! the channel full of hits while one load panics.
//! expect-fail: a_panic_comes_out_at_once_even_under_a_flood_of_requests
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            biased; // requests first
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
    tasks.join_all().await;
}
