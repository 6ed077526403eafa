//! Wrong: the tasks go into a `JoinSet`, and `serve` returns when the channel closes
//! without waiting for them. A `JoinSet` aborts its tasks when it is dropped, so the
//! requests still loading at that moment are dropped unanswered.
//! expect-fail: a_hit_never_waits_for_loads_in_flight, a_miss_loads_then_a_hit_comes_from_the_cache, a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, an_answer_does_not_wait_for_later_requests, every_request_is_a_task_of_its_own, memory_stays_flat_however_many_requests_are_served, no_borrow_of_the_cache_is_held_across_an_await, requests_are_served_concurrently, serve_lets_go_of_the_backend_and_the_cache, serve_returns_only_when_every_request_is_answered
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
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
}
