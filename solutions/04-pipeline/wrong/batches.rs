//! Wrong: fetches in batches of `limit`, waiting for a whole batch before the next.
//! With equal latencies it looks perfect; but each batch waits for its slowest member,
//! where a sliding window starts the next request as soon as a slot is free.
//! expect-fail: a_sliding_window_not_batches
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut items = Vec::with_capacity(ids.len());
    for batch in ids.chunks(limit) {
        let fetches = batch.iter().map(|&id| source.fetch(id));
        items.extend(futures::future::join_all(fetches).await);
    }
    items
}
