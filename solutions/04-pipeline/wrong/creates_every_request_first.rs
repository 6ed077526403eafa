//! Wrong: creates every request's future first, then runs them through `buffered`.
//! With a source whose work starts at the first poll (an `async fn`), that looks the
//! same; but many clients send the request when `fetch` is called, and the future only
//! waits for the answer: then every request is in flight from the start, and the limit
//! holds back nothing but the polling.
//! expect-fail: fetch_is_called_only_when_a_slot_is_free
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let requests: Vec<_> = ids.iter().map(|&id| source.fetch(id)).collect();
    stream::iter(requests).buffered(limit).collect().await
}
