//! Wrong: `fetch_as_ready` fetches each distinct id once, so a repeated id gets one
//! item instead of one per request.
//! expect-fail: as_ready_fetches_every_id_repeats_too
//! replaces: as_ready

pub async fn fetch_as_ready<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut unique: Vec<u32> = Vec::new();
    for &id in ids {
        if !unique.contains(&id) {
            unique.push(id);
        }
    }
    stream::iter(unique)
        .map(|id| source.fetch(id))
        .buffer_unordered(limit)
        .collect()
        .await
}
