//! Wrong: borrows and joins, but keeps the starter's `B: 'static`, "to be safe". With a
//! backend that owns everything it would pass; the tests' backend borrows the test's
//! probe, so the bound refuses it.
//! expect-error: E0521
//! replaces: fan_out

pub async fn fan_out<B>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError>
where
    B: Backend + 'static,
{
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
