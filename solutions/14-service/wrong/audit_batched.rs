//! Wrong: answers every request first, then records the whole batch with the audit
//! service, all at once, and returns the first audit error. When every request takes
//! equally long this is the same timing as the solution, and every audit error still
//! reaches the caller. But a quick request's audit waits for the slowest request of the
//! batch: its error comes back 100 ms late, and the other requests ran on meanwhile.
//! expect-fail: an_audit_error_comes_back_while_other_requests_run
//! replaces: solution

pub trait Client {
    fn call(&self, id: u32) -> impl Future<Output = Result<String, ServiceError>>;
}

pub struct Context<C> {
    pub db: C,
    pub service_a: C,
    pub service_b: C,
    pub service_c: C,
}

async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let user = ctx.db.call(id).await?;
    let (a, b) = futures::try_join!(ctx.service_a.call(id), ctx.service_b.call(id))?;
    Ok(Response { id, user, a, b })
}

pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    let responses = futures::future::try_join_all(ids.iter().map(|&id| handle(ctx, id))).await?;
    // The responses are ready: now record the batch.
    futures::future::try_join_all(ids.iter().map(|&id| ctx.service_c.call(id))).await?;
    Ok(responses)
}
