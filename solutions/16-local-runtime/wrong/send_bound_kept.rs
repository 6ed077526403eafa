//! Wrong: everything is local now, but `serve` still asks for `B: Send + Sync`, "to be
//! safe". Nothing in it needs that any more, and the tests' backend, which counts in an
//! `Rc`, is neither.
//! expect-error: E0277
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + Send + Sync + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    while let Some(request) = requests.recv().await {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tasks.spawn_local(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        });
    }
    tasks.join_all().await;
}
