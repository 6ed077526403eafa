//! Wrong: keeps the audit call out of the request's way by starting it as a local task
//! (`spawn_local`, which needs no `Send`). But a task may outlive `handle`, so it must be
//! `'static`, and this one borrows `ctx`: the compiler refuses the leak.
//! expect-error: E0521
//! replaces: handle

async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let user = ctx.db.call(id).await?;
    let (a, b) = futures::try_join!(ctx.service_a.call(id), ctx.service_b.call(id))?;
    tokio::task::spawn_local(async move {
        if let Err(error) = ctx.service_c.call(id).await {
            eprintln!("audit: {error}");
        }
    });
    Ok(Response { id, user, a, b })
}
