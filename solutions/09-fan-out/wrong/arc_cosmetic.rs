//! Wrong in its lesson, right in its tests: it borrows and joins, but copies the ids
//! into an `Arc<[u32]>` first, a habit from spawning code that nothing here needs.
//! The tests cannot see it; the lab's `forbid` list can (`cargo labs check` says
//! where, and verify proves it).
//! expect-lesson: Arc
//! replaces: fan_out

use std::sync::Arc;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let ids: Arc<[u32]> = Arc::from(ids);
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
