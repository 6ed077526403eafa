//! Wrong: awaits one request after the other. It compiles and returns the right
//! profiles, but ten requests take ten times as long.
//! expect-fail: requests_run_concurrently, thousands_of_requests_are_all_in_flight_at_once, an_error_stops_the_other_requests
//! replaces: fan_out

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let mut profiles = Vec::with_capacity(ids.len());
    for &id in ids {
        profiles.push(backend.fetch(id).await?);
    }
    Ok(profiles)
}
