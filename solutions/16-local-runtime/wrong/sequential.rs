//! Wrong: no tasks at all. Each request is served inside the loop, before the next one is
//! taken from the channel: right answers, one load at a time.
//! expect-fail: a_panic_in_a_request_reaches_whoever_awaits_serve, a_hit_never_waits_for_loads_in_flight, a_stopped_load_was_a_miss_and_caches_nothing, dropping_serve_stops_its_requests, every_request_is_a_task_of_its_own, no_borrow_of_the_cache_is_held_across_an_await, requests_are_served_concurrently, serve_returns_only_when_every_request_is_answered
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    while let Some(request) = requests.recv().await {
        let value = lookup(&backend, &cache, request.key).await;
        let _ = request.reply.send(value);
    }
}
