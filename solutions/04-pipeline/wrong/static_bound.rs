//! Wrong: a `'static` bound on the source, left over from spawning. Nothing here spawns:
//! every request future borrows the source and ends before `fetch_in_order` returns.
//! The tests' site borrows a gauge from the test, so the bound does not compile.
//! expect-error: E0597
//! replaces: in_order

pub async fn fetch_in_order<S: Source + 'static>(
    source: &S,
    ids: &[u32],
    limit: usize,
) -> Vec<String> {
    stream::iter(ids)
        .map(|&id| source.fetch(id))
        .buffered(limit)
        .collect()
        .await
}
