//! Wrong: the context is borrowed and the calls joined, so every test passes, but each
//! request still wraps the context in an `Arc` before using it, out of habit.
//! `cargo labs check` reports the lab as not done until the `Arc` is gone.
//! expect-lesson: Arc
//! replaces: handle

async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let ctx = std::sync::Arc::new(ctx);
    let user = ctx.db.call(id).await?;
    let (a, b) = futures::try_join!(ctx.service_a.call(id), ctx.service_b.call(id))?;
    ctx.service_c.call(id).await?;
    Ok(Response { id, user, a, b })
}
