//! Solution to lab 14: the service without `Arc`.

use std::fmt;

/// What one request produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub id: u32,
    pub user: String,
    pub a: String,
    pub b: String,
}

/// A backend call failed: which service, for which request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceError {
    pub service: String,
    pub id: u32,
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed for request {}", self.service, self.id)
    }
}

impl std::error::Error for ServiceError {}

// ANCHOR: solution
// ANCHOR: context
/// A client for one backend service. The tests implement it with fakes.
pub trait Client {
    fn call(&self, id: u32) -> impl Future<Output = Result<String, ServiceError>>;
}

/// Everything a request needs, owned by the caller and lent to `serve`.
pub struct Context<C> {
    pub db: C,
    pub service_a: C,
    pub service_b: C,
    pub service_c: C,
}
// ANCHOR_END: context

// ANCHOR: handle
/// One request: the user first, then a and b together, then the audit record.
async fn handle<C: Client>(ctx: &Context<C>, id: u32) -> Result<Response, ServiceError> {
    let user = ctx.db.call(id).await?;
    let (a, b) = futures::try_join!(ctx.service_a.call(id), ctx.service_b.call(id))?;
    ctx.service_c.call(id).await?;
    Ok(Response { id, user, a, b })
}
// ANCHOR_END: handle

// ANCHOR: serve
/// Answers every request in `ids`, concurrently, in the order asked. The first error
/// is returned at once; every call still running is dropped with the join.
pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    futures::future::try_join_all(ids.iter().map(|&id| handle(ctx, id))).await
}
// ANCHOR_END: serve
// ANCHOR_END: solution
