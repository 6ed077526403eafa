//! Wrong: at most ten requests at a time (`buffer_unordered(10)`), put back in order by
//! index. Every test with ten requests or fewer passes; 2500 take 250 rounds.
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
        .buffer_unordered(10)
        .try_collect()
        .await?;
    responses.sort_by_key(|&(i, _)| i);
    Ok(responses
        .into_iter()
        .map(|(_, response)| response)
        .collect())
}
