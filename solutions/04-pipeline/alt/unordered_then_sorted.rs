//! Also right: `buffer_unordered`, remembering each item's position, then putting the
//! items back in the order of `ids`. A finished request frees its slot at once (no
//! waiting behind a slow head), and the order is restored at the end, at the price of
//! holding every item until all have arrived.
//! expect-pass
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut items: Vec<(usize, String)> = stream::iter(ids.iter().enumerate())
        .map(|(at, &id)| async move { (at, source.fetch(id).await) })
        .buffer_unordered(limit)
        .collect()
        .await;
    items.sort_by_key(|&(at, _)| at);
    items.into_iter().map(|(_, item)| item).collect()
}
