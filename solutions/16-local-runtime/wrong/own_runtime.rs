//! Wrong: "local tasks need a `LocalRuntime`", so `serve` builds one and spawns onto it.
//! But `serve` already runs on the tests' runtime, and nobody ever drives the new one:
//! its tasks never run, and no request is answered.
//! expect-fail: a_hit_costs_the_same_in_a_big_cache, a_hit_never_waits_for_loads_in_flight, a_load_whose_client_left_still_counts_and_is_cached, a_miss_loads_then_a_hit_comes_from_the_cache, a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_stopped_load_was_a_miss_and_caches_nothing, an_answer_does_not_wait_for_later_requests, an_idle_serve_waits_quietly_for_the_next_request, dropping_serve_stops_its_requests, every_request_is_a_task_of_its_own, memory_stays_flat_however_many_requests_are_served, no_borrow_of_the_cache_is_held_across_an_await, requests_are_served_concurrently, serve_lets_go_of_the_backend_and_the_cache, serve_returns_only_when_every_request_is_answered
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let runtime = tokio::runtime::LocalRuntime::new().expect("a local runtime");
    let backend = Rc::new(backend);
    let mut tasks = Vec::new();
    while let Some(request) = requests.recv().await {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tasks.push(runtime.spawn_local(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        }));
    }
    for task in tasks {
        task.await.expect("a request panicked");
    }
}
