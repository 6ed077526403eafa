//! Wrong: caps the limit at 3 ("the server cannot take more"). Every test with a
//! limit of 2 or 3 passes; a limit of 7 runs 3 at a time.
//! expect-fail: a_thousand_ids_seven_at_a_time, limits_from_one_to_beyond_the_ids
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffered(limit.min(3))
        .collect()
        .await
}
