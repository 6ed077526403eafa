//! Wrong: takes the profiles as they finish, then sorts them by id to "restore the
//! order". That is the order asked only when the ids were asked in ascending order.
//! expect-fail: profiles_come_back_in_request_order, thousands_of_requests_are_all_in_flight_at_once
//! replaces: fan_out

use futures::TryStreamExt;
use futures::stream::FuturesUnordered;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let requests: FuturesUnordered<_> = ids.iter().map(|&id| backend.fetch(id)).collect();
    let mut profiles: Vec<Profile> = requests.try_collect().await?;
    profiles.sort_by_key(|profile| profile.id);
    Ok(profiles)
}
