//! Wrong: starts every request at once. Fast, in order, and with no limit at all:
//! ten requests are in flight, not three.
//! expect-fail: a_sliding_window_not_batches, a_thousand_ids_seven_at_a_time, fetch_is_called_only_when_a_slot_is_free, items_come_back_in_the_order_asked, limits_from_one_to_beyond_the_ids, never_more_than_limit_in_flight, ten_items_three_at_a_time_take_four_rounds
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], _limit: usize) -> Vec<String> {
    futures::future::join_all(ids.iter().map(|&id| source.fetch(id))).await
}
