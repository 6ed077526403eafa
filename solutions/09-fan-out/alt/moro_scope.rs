//! Also right: the same fan-out in a moro-local scope. Results are taken in the
//! order the jobs finish, so the first error ends the scope at once (see
//! wrong/moro_in_order.rs for what happens otherwise); the index puts them back in order.
//! expect-pass
//! replaces: fan_out

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use moro_local::prelude::UnwrapOrCancel;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    moro_local::async_scope!(|scope| {
        // Jobs may borrow `backend`: the scope does not end before they do.
        let mut jobs: FuturesUnordered<_> = (ids.iter().enumerate())
            .map(|(i, &id)| scope.spawn(async move { (i, backend.fetch(id).await) }))
            .collect();
        let mut profiles = vec![None; ids.len()];
        while let Some((i, result)) = jobs.next().await {
            // An error ends the whole scope with that error; the other jobs are dropped.
            profiles[i] = Some(result.unwrap_or_cancel(scope).await);
        }
        Ok(profiles.into_iter().flatten().collect())
    })
    .await
}
