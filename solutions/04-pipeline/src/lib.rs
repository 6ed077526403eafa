//! Solution to lab 04: a pipeline with a concurrency limit.

use futures::StreamExt;
use futures::stream;

/// Where items come from. The tests implement it with a fake, single-threaded site.
pub trait Source {
    fn fetch(&self, id: u32) -> impl Future<Output = String>;
}

// ANCHOR: solution
// ANCHOR: in_order
/// Fetches every id, at most `limit` at a time, and returns the items in the order
/// of `ids`.
pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffered(limit)
        .collect()
        .await
}
// ANCHOR_END: in_order

// ANCHOR: as_ready
/// Fetches every id, at most `limit` at a time, and returns the items in the order
/// they arrived.
pub async fn fetch_as_ready<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffer_unordered(limit)
        .collect()
        .await
}
// ANCHOR_END: as_ready
// ANCHOR_END: solution
