//! Wrong: reports the first error, but only once every other request has finished:
//! `join_all` cannot know that one failure makes the rest pointless.
//! expect-fail: an_audit_error_comes_back_while_other_requests_run, an_error_from_service_a_stops_everything, an_error_from_service_b_stops_everything, an_error_from_the_audit_stops_everything, an_error_from_the_db_stops_everything
//! replaces: serve

pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    let results = futures::future::join_all(ids.iter().map(|&id| handle(ctx, id))).await;
    results.into_iter().collect()
}
