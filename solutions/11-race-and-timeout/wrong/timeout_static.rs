//! Wrong: a timeout that asks for `'static`, as a spawned task would. The body is
//! fine, but the tests time out a lookup that borrows a local store, so they do
//! not compile.
//! expect-error: E0597
//! replaces: with_timeout

pub async fn with_timeout<F>(limit: Duration, fut: F) -> Result<F::Output, TimedOut>
where
    F: Future + 'static,
{
    tokio::time::timeout(limit, fut)
        .await
        .map_err(|_elapsed| TimedOut)
}
