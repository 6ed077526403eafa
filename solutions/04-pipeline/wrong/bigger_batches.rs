//! Wrong: batches after all, only bigger ones: chunks of `4 * limit` ids, each run
//! through `buffered(limit)`. Inside a chunk the window slides; at the end of each
//! chunk it waits for the slowest request before the next chunk starts. With fewer
//! ids than one chunk it looks perfect; with 9 ids and a limit of 2 it takes 700 ms.
//! expect-fail: a_sliding_window_not_batches
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut items = Vec::new();
    for batch in ids.chunks(limit * 4) {
        let got: Vec<String> = stream::iter(batch)
            .map(|&id| source.fetch(id))
            .buffered(limit)
            .collect()
            .await;
        items.extend(got);
    }
    items
}
