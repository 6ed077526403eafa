//! Wrong: `capped.rs` with a generous cap, 1024 requests at a time ("a server should
//! never open more than that"). Every batch of up to 1024 requests passes, so a test of
//! a hundred requests never noticed; 2500 take three rounds. A limit is the caller's
//! decision, not a constant hidden in `serve`, however large.
//! expect-fail: thousands_of_requests_run_at_once
//! replaces: serve

use futures::{StreamExt, TryStreamExt};

pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    let requests = (ids.iter().enumerate())
        .map(|(i, &id)| async move { handle(ctx, id).await.map(|response| (i, response)) });
    let mut responses: Vec<(usize, Response)> = futures::stream::iter(requests)
        .buffer_unordered(1024)
        .try_collect()
        .await?;
    responses.sort_by_key(|&(i, _)| i);
    Ok(responses
        .into_iter()
        .map(|(_, response)| response)
        .collect())
}
