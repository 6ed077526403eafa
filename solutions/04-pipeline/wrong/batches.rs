//! Wrong: fetches in batches of `limit`, waiting for a whole batch before the next.
//! With equal latencies it looks perfect; one slow item holds up its whole batch,
//! while a free slot should be refilled at once.
//! expect-fail: a_free_slot_is_refilled_at_once
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut items = Vec::with_capacity(ids.len());
    for batch in ids.chunks(limit) {
        let fetches = batch.iter().map(|&id| source.fetch(id));
        items.extend(futures::future::join_all(fetches).await);
    }
    items
}
