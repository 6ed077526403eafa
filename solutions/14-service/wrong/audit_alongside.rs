//! Wrong: starts the audit call together with a and b, "since it does not need their
//! answers". Every request is 10 ms shorter, and a request whose a or b fails has
//! already been recorded as served.
//! expect-fail: requests_run_concurrently, a_hundred_requests_run_at_once, the_two_sub_calls_of_a_request_overlap, an_error_from_the_audit_stops_everything
//! replaces: handle

async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let user = ctx.db.call(id).await?;
    let (a, b, _) = futures::try_join!(
        ctx.service_a.call(id),
        ctx.service_b.call(id),
        ctx.service_c.call(id)
    )?;
    Ok(Response { id, user, a, b })
}
