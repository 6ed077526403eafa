//! Wrong: counts a miss where the loaded value is cached, after the load, in one borrow
//! with the insert. While `serve` runs to the end the totals come out the same; but when
//! `serve` is stopped in the middle of a load, the request that found nothing in the cache
//! is never counted. A request is a hit or a miss when it looks the cache up.
//! expect-fail: a_stopped_load_was_a_miss_and_caches_nothing
//! replaces: lookup

async fn lookup<B: Backend>(backend: &B, cache: &RefCell<Cache>, key: u32) -> String {
    let found = cache.borrow().entries.get(&key).cloned();
    if let Some(value) = found {
        cache.borrow_mut().hits += 1;
        return value;
    }
    let value = backend.load(key).await;
    let mut cache = cache.borrow_mut();
    cache.misses += 1; // counted only if the load ends
    cache.entries.insert(key, value.clone());
    value
}
