//! Wrong: `tokio::spawn` became `spawn_local` and the cache an `Rc<RefCell<_>>`, but the
//! backend is still shared through an `Arc`. It compiles (an `Arc` of something that is
//! not `Send` is allowed, it is just not `Send` either) and every test passes; it pays
//! for atomic reference counts that one thread never needs. The lab forbids `Arc`.
//! expect-lesson: Arc
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = std::sync::Arc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                let backend = std::sync::Arc::clone(&backend);
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
