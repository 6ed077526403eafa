//! Wrong: a db failure becomes an "unknown" user, so the request still succeeds. The
//! response is made up, and the caller cannot tell.
//! expect-fail: an_error_from_the_db_stops_everything
//! replaces: handle

async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let user = (ctx.db.call(id).await).unwrap_or_else(|_| "unknown".to_string());
    let (a, b) = futures::try_join!(ctx.service_a.call(id), ctx.service_b.call(id))?;
    ctx.service_c.call(id).await?;
    Ok(Response { id, user, a, b })
}
