//! Wrong: each request is started with `spawn_local` and its `JoinHandle` dropped at
//! once, as fire-and-forget. Dropping a handle detaches its task: `serve` returns as soon
//! as the channel closes, with requests still being served, and whatever the runtime has
//! not run by the time it stops is lost.
//! expect-fail: a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_stopped_load_was_a_miss_and_caches_nothing, dropping_serve_stops_its_requests, every_request_is_a_task_of_its_own, no_borrow_of_the_cache_is_held_across_an_await, requests_are_served_concurrently, serve_lets_go_of_the_backend_and_the_cache, serve_returns_only_when_every_request_is_answered
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    while let Some(request) = requests.recv().await {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tokio::task::spawn_local(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        });
    }
}
