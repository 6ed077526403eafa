//! Wrong: borrows and joins, but keeps the starter's `C: 'static`. The tests' clients
//! borrow the test's probe, so the bound refuses them.
//! expect-error: E0521
//! replaces: serve

pub async fn serve<C>(ctx: &Context<C>, ids: &[u32]) -> Result<Vec<Response>, ServiceError>
where
    C: Client + 'static,
{
    futures::future::try_join_all(ids.iter().map(|&id| handle(ctx, id))).await
}
