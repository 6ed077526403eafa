//! Wrong: caps the limit at 100, "a sane maximum". Every test with a limit of a few
//! passes, and so does a thousand ids seven at a time; a limit of 600 runs 100 at a
//! time. The limit is the caller's decision.
//! expect-fail: limits_from_one_to_beyond_the_ids
//! replaces: as_ready

pub async fn fetch_as_ready<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffer_unordered(limit.min(100))
        .collect()
        .await
}
