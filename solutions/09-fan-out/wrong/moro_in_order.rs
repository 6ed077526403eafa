//! Wrong: a moro-local scope that awaits its jobs in the order they were spawned.
//! The jobs run concurrently, but request 3's error is only seen when its turn
//! comes, after requests 1 and 2 have taken their full 100 ms.
//! expect-fail: an_error_stops_the_other_requests
//! replaces: fan_out

use moro_local::prelude::UnwrapOrCancel;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    moro_local::async_scope!(|scope| {
        let jobs: Vec<_> = ids
            .iter()
            .map(|&id| scope.spawn(backend.fetch(id)))
            .collect();
        let mut profiles = Vec::with_capacity(jobs.len());
        for job in jobs {
            profiles.push(job.await.unwrap_or_cancel(scope).await);
        }
        Ok(profiles)
    })
    .await
}
