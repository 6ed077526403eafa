//! Wrong: the starter's `lock()` block, translated to `borrow_mut()` without the block.
//! A `MutexGuard` had to end before the `.await` (alive across it, the future is not
//! `Send`), but nothing at compile time stops a `RefMut` from living on. The borrow is
//! alive while the backend is awaited, so any other task that touches the cache then
//! would panic with "RefCell already borrowed"; the fake backend names it first.
//! expect-fail: a_hit_never_waits_for_loads_in_flight, a_load_whose_client_left_still_counts_and_is_cached, a_miss_loads_then_a_hit_comes_from_the_cache, a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_stopped_load_was_a_miss_and_caches_nothing, an_answer_does_not_wait_for_later_requests, an_idle_serve_waits_quietly_for_the_next_request, dropping_serve_stops_its_requests, every_request_is_a_task_of_its_own, memory_stays_flat_however_many_requests_are_served, no_borrow_of_the_cache_is_held_across_an_await, requests_are_served_concurrently, serve_lets_go_of_the_backend_and_the_cache, serve_returns_only_when_every_request_is_answered
//! replaces: lookup

async fn lookup<B: Backend>(backend: &B, cache: &RefCell<Cache>, key: u32) -> String {
    let mut cache = cache.borrow_mut();
    if let Some(value) = cache.entries.get(&key).cloned() {
        cache.hits += 1;
        return value;
    }
    cache.misses += 1;
    let value = backend.load(key).await; // `cache` is still borrowed here
    cache.entries.insert(key, value.clone());
    value
}
