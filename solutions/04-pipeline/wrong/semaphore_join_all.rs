//! Wrong, though it looks right: every request waits for one of `limit` permits of a
//! tokio `Semaphore` on this function's stack, all of them joined. The limit holds and
//! the window slides; but the requests start in the order `join_all` polls them, which
//! is the order of `ids` only for the first 128. With more than 30 futures, `join_all`
//! runs them in a `FuturesOrdered`, which polls through a `FuturesUnordered`; tokio's
//! cooperative budget (128 operations per task poll, `acquire` among them, tokio 1.54.1
//! `task/coop`) makes every later `acquire` answer Pending and wake itself, and
//! `FuturesUnordered` polls those again only after the others. With a wide limit, the
//! 129th request and those after it start out of order (futures-util 0.3.34,
//! `future/join_all.rs` and `stream/futures_unordered/mod.rs`).
//! expect-fail: limits_from_one_to_beyond_the_ids
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
