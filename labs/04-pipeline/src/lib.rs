//! Lab 04: a pipeline with a concurrency limit.
//!
//! Fetch many items from a source, with at most `limit` requests in flight at once,
//! and hand back what came: once in the order asked, once in the order it arrived.
//! The tests lend you a source full of `Cell`s and a `RefCell`, borrowed from the test,
//! and run in virtual time. Task and hints: README.md next to this file.

/// Where items come from. The tests implement it with a fake, single-threaded site.
pub trait Source {
    fn fetch(&self, id: u32) -> impl Future<Output = String>;
}

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
/// Fetches every id, at most `limit` at a time, and returns the items in the order
/// of `ids`.
pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let _ = limit; // not used yet: one request at a time
    let mut items = Vec::with_capacity(ids.len());
    for &id in ids {
        items.push(source.fetch(id).await);
    }
    items
}

/// Fetches every id, at most `limit` at a time, and returns the items in the order
/// they arrived.
pub async fn fetch_as_ready<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let _ = limit; // not used yet: one request at a time
    let mut items = Vec::with_capacity(ids.len());
    for &id in ids {
        items.push(source.fetch(id).await);
    }
    items
}
// ANCHOR_END: starter
