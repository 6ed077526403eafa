//! Wrong in its lesson, right in its tests: the context is borrowed and nothing is
//! spawned, but `serve` still puts the ids in an `Arc` "so the requests can share
//! them", a leftover of the clone dance. The tests cannot see it; the lab's `forbid`
//! list can.
//! expect-lesson: Arc
//! replaces: serve

use std::sync::Arc;

pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    let ids: Arc<[u32]> = Arc::from(ids);
    futures::future::try_join_all(ids.iter().map(|&id| handle(ctx, id))).await
}
