//! Wrong, though every answer comes on time: the starter's shape with `spawn_local`, the
//! handles kept in a `Vec` and awaited at the end. When `serve` itself is dropped (a
//! server shutting down), the `Vec` drops the handles, and dropping a `JoinHandle` does
//! not stop its task: the loads run on, for nobody, and keep the backend alive. And
//! while the channel is open, the handles pile up, one per request ever served, with a
//! request's panic waiting unseen in its handle until the channel closes.
//! expect-fail: a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_stopped_load_was_a_miss_and_caches_nothing, dropping_serve_stops_its_requests, memory_stays_flat_however_many_requests_are_served, serve_lets_go_of_the_backend_and_the_cache
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
