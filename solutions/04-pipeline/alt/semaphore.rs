//! Also right: every request waits for one of `limit` permits of a tokio `Semaphore`
//! that lives on this function's stack, all of them joined. Borrowed, like the source:
//! no `Arc`. `join_all` holds a future per id from the start, but only `limit` of them
//! get past `acquire` at once, in the order they asked (the semaphore is fair).
//! expect-pass
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let permits = tokio::sync::Semaphore::new(limit);
    let permits = &permits;
    futures::future::join_all(ids.iter().map(|&id| async move {
        let _permit = permits.acquire().await.unwrap();
        source.fetch(id).await
    }))
    .await
}
