//! Wrong: starts every request at once. Fast, in order, and with no limit at all:
//! ten requests are in flight, not three.
//! expect-fail: never_more_than_limit_in_flight, ten_items_three_at_a_time_take_four_rounds, a_free_slot_is_refilled_at_once
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], _limit: usize) -> Vec<String> {
    futures::future::join_all(ids.iter().map(|&id| source.fetch(id))).await
}
