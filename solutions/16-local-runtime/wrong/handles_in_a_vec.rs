//! Wrong, and the closest to right: the starter's shape with `spawn_local`, the handles
//! kept in a `Vec` and awaited at the end. Every answer comes, on time. But when `serve`
//! itself is dropped (a server shutting down), the `Vec` drops the handles, and dropping
//! a `JoinHandle` does not stop its task: the loads run on, for nobody.
//! expect-fail: dropping_serve_stops_its_requests
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = Vec::new();
    while let Some(request) = requests.recv().await {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tasks.push(tokio::task::spawn_local(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        }));
    }
    for task in tasks {
        task.await.expect("a request panicked");
    }
}
