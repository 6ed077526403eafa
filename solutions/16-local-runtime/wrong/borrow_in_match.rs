//! Wrong: no borrow in a variable, and still one alive across the `.await`. A temporary
//! in a `match` scrutinee lives until the end of the whole `match`, so the `Ref` that
//! `cache.borrow()` returns is alive in the `None` arm while the backend is awaited.
//! (Edition 2024 drops an `if let` scrutinee's temporaries before `else`, not a `match`'s.)
//! expect-fail: a_hit_never_waits_for_loads_in_flight, a_load_whose_client_left_still_counts_and_is_cached, a_miss_loads_then_a_hit_comes_from_the_cache, a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_stopped_load_was_a_miss_and_caches_nothing, an_answer_does_not_wait_for_later_requests, an_idle_serve_waits_quietly_for_the_next_request, dropping_serve_stops_its_requests, every_request_is_a_task_of_its_own, memory_stays_flat_however_many_requests_are_served, no_borrow_of_the_cache_is_held_across_an_await, requests_are_served_concurrently, serve_lets_go_of_the_backend_and_the_cache, serve_returns_only_when_every_request_is_answered
//! replaces: lookup

async fn lookup<B: Backend>(backend: &B, cache: &RefCell<Cache>, key: u32) -> String {
    let (value, hit) = match cache.borrow().entries.get(&key) {
        Some(value) => (value.clone(), true),
        None => (backend.load(key).await, false),
    };
    let mut cache = cache.borrow_mut();
    if hit {
        cache.hits += 1;
    } else {
        cache.misses += 1;
        cache.entries.insert(key, value.clone());
    }
    value
}
