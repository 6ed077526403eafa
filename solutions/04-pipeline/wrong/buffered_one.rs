//! Wrong: the right combinator with the wrong argument. `buffered(1)` is a stream
//! that fetches one item at a time, which is the sequential loop again.
//! expect-fail: a_sliding_window_not_batches, a_thousand_ids_seven_at_a_time, fetch_is_called_only_when_a_slot_is_free, limits_from_one_to_beyond_the_ids, never_more_than_limit_in_flight, ten_items_three_at_a_time_take_four_rounds
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], _limit: usize) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffered(1)
        .collect()
        .await
}
