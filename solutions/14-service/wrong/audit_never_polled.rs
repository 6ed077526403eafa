//! Wrong: "fire and forget" without a spawn. The audit future is created and dropped
//! without ever being polled, so the audit call never happens at all (and every
//! request ends 10 ms early, which the timing tests notice too).
//! expect-fail: an_audit_error_comes_back_while_other_requests_run, an_error_from_the_audit_stops_everything, nothing_outlives_the_call, requests_run_concurrently, responses_come_back_in_the_order_asked, the_two_sub_calls_of_a_request_overlap, thousands_of_requests_run_at_once
//! replaces: handle

async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let user = ctx.db.call(id).await?;
    let (a, b) = futures::try_join!(ctx.service_a.call(id), ctx.service_b.call(id))?;
    let _audit = ctx.service_c.call(id);
    Ok(Response { id, user, a, b })
}
