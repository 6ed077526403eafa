//! Wrong: takes every request from the channel first, then serves them all at once.
//! Concurrent, but no request is served before the channel closes, so an early client
//! waits for the last one to ask.
//! expect-fail: a_hit_costs_the_same_in_a_big_cache, a_hit_never_waits_for_loads_in_flight, a_load_whose_client_left_still_counts_and_is_cached, a_miss_loads_then_a_hit_comes_from_the_cache, a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_stopped_load_was_a_miss_and_caches_nothing, an_answer_does_not_wait_for_later_requests, an_idle_serve_waits_quietly_for_the_next_request, dropping_serve_stops_its_requests, memory_stays_flat_however_many_requests_are_served, no_borrow_of_the_cache_is_held_across_an_await
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let mut waiting = Vec::new();
    while let Some(request) = requests.recv().await {
        waiting.push(request);
    }
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    for request in waiting {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tasks.spawn_local(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        });
    }
    tasks.join_all().await;
}
