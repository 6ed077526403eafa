//! Wrong: collects the responses as they finish, then sorts them by id. That is the
//! order asked only when the ids were asked in ascending order.
//! expect-fail: thousands_of_requests_run_at_once, responses_come_back_in_the_order_asked
//! replaces: serve

use futures::TryStreamExt;
use futures::stream::FuturesUnordered;

pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    let requests: FuturesUnordered<_> = ids.iter().map(|&id| handle(ctx, id)).collect();
    let mut responses: Vec<Response> = requests.try_collect().await?;
    responses.sort_by_key(|response| response.id);
    Ok(responses)
}
