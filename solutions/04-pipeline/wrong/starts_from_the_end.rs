//! Wrong: starts the requests from the end of the list, then reverses the result. The
//! items come back in order and the limit holds, but the first item the caller needs
//! is requested last.
//! expect-fail: a_sliding_window_not_batches, a_thousand_ids_seven_at_a_time, fetch_is_called_only_when_a_slot_is_free, items_come_back_in_the_order_asked, limits_from_one_to_beyond_the_ids, never_more_than_limit_in_flight
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut items: Vec<String> = stream::iter(ids.iter().rev())
        .map(|&id| source.fetch(id))
        .buffered(limit)
        .collect()
        .await;
    items.reverse();
    items
}
