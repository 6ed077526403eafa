//! Wrong: "not too many at once", with `buffer_unordered(16)`, and the index puts the
//! profiles back in order. Ten requests never notice the cap; 2500 take 157
//! rounds. A limit is a decision for the caller, not a hidden constant.
//! expect-fail: thousands_of_requests_are_all_in_flight_at_once
//! replaces: fan_out

use futures::{StreamExt, TryStreamExt};

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let requests = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| async move { backend.fetch(id).await.map(|profile| (i, profile)) });
    let mut profiles: Vec<(usize, Profile)> = futures::stream::iter(requests)
        .buffer_unordered(16)
        .try_collect()
        .await?;
    profiles.sort_by_key(|&(i, _)| i);
    Ok(profiles.into_iter().map(|(_, profile)| profile).collect())
}
