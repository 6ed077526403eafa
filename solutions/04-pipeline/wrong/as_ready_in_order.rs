//! Wrong: `buffered` where the items should come back as they arrive. Item 1 is
//! slow, and every item behind it waits for it before it is handed back.
//! expect-fail: as_ready_hands_items_back_as_they_arrive
//! replaces: as_ready

pub async fn fetch_as_ready<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffered(limit)
        .collect()
        .await
}
