//! Wrong: reports the error, but only after every other request has finished:
//! `join_all` has no idea that one failure makes the rest pointless.
//! expect-fail: an_error_stops_the_other_requests
//! replaces: fan_out

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let results = futures::future::join_all(ids.iter().map(|&id| backend.fetch(id))).await;
    results.into_iter().collect()
}
