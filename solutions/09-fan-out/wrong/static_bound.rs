//! Wrong: borrows and joins, but the `'static` bound of the spawning version is left on
//! the backend, "to be safe". A backend that owned all its state would pass every test
//! (and the lab's `forbid` list would still catch the `'static`); the tests' backend
//! borrows the test's probe, so the bound refuses it at compile time.
//! expect-error: E0521
//! replaces: fan_out

pub async fn fan_out<B: Backend + 'static>(
    backend: &B,
    ids: &[u32],
) -> Result<Vec<Profile>, FetchError> {
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
