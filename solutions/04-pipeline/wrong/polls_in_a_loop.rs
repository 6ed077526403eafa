//! Wrong: a window made by hand that checks its futures with `now_or_never` and
//! `yield_now`s in between. `now_or_never` polls with a waker that does nothing, so the
//! only thing that brings the task back is its own yield: it polls in a loop while the
//! requests wait (busy polling), and in virtual time the clock stops, because the
//! runtime is never idle. The tests' poll budget fails it at once instead of hanging.
//! expect-fail: a_sliding_window_not_batches, a_thousand_ids_seven_at_a_time, fetch_is_called_only_when_a_slot_is_free, items_come_back_in_the_order_asked, limits_from_one_to_beyond_the_ids, never_more_than_limit_in_flight, ten_items_three_at_a_time_take_four_rounds
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    use futures::FutureExt;
    let mut running = futures::stream::FuturesOrdered::new();
    let mut next = ids.iter();
    let mut items = Vec::new();
    loop {
        while running.len() < limit {
            match next.next() {
                Some(&id) => running.push_back(source.fetch(id)),
                None => break,
            }
        }
        if running.is_empty() {
            return items;
        }
        match running.next().now_or_never() {
            Some(Some(item)) => items.push(item),
            _ => tokio::task::yield_now().await,
        }
    }
}
