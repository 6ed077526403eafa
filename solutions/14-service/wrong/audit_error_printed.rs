//! Wrong: awaits the audit call, but prints its error and answers anyway, as the
//! starter's fire-and-forget did: "the response is ready, the audit is a side show".
//! The caller never learns that a request went unrecorded.
//! expect-fail: an_audit_error_comes_back_while_other_requests_run, an_error_from_the_audit_stops_everything
//! replaces: handle

async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let user = ctx.db.call(id).await?;
    let (a, b) = futures::try_join!(ctx.service_a.call(id), ctx.service_b.call(id))?;
    if let Err(error) = ctx.service_c.call(id).await {
        eprintln!("audit: {error}"); // printed, and lost
    }
    Ok(Response { id, user, a, b })
}
