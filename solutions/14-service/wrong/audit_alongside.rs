//! Wrong: starts the audit call together with a and b, "since it does not need their
//! answers". Every request is 10 ms shorter, and a request whose a or b fails has
//! already been recorded as served.
//! expect-fail: an_audit_error_comes_back_while_other_requests_run, an_error_from_the_audit_stops_everything, requests_run_concurrently, the_two_sub_calls_of_a_request_overlap, thousands_of_requests_run_at_once
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
