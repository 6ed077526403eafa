//! Wrong: `buffer_unordered` where the order matters. Limit and timing are right,
//! but the items come back in the order they arrived, not the order asked.
//! expect-fail: a_sliding_window_not_batches, items_come_back_in_the_order_asked, limits_from_one_to_beyond_the_ids
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffer_unordered(limit)
        .collect()
        .await
}
