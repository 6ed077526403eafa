//! Wrong: `buffer_unordered`, then sorts the items by id to "restore" the order. With
//! ids that are asked in increasing order that is the same thing; with ids out of
//! order it is not.
//! expect-fail: a_thousand_ids_seven_at_a_time, items_come_back_in_the_order_asked, limits_from_one_to_beyond_the_ids
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut items: Vec<(u32, String)> = stream::iter(ids)
        .map(|&id| async move { (id, source.fetch(id).await) })
        .buffer_unordered(limit)
        .collect()
        .await;
    items.sort_by_key(|(id, _)| *id);
    items.into_iter().map(|(_, item)| item).collect()
}
