//! Wrong: runs every request concurrently but keeps only the successes, so the
//! caller never learns that a request failed (the starter's `eprintln!`, minus the print).
//! expect-fail: an_error_comes_back_to_the_caller, an_error_stops_the_other_requests
//! replaces: fan_out

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let results = futures::future::join_all(ids.iter().map(|&id| backend.fetch(id))).await;
    Ok(results.into_iter().filter_map(Result::ok).collect())
}
