//! Lab 14: the service without `Arc`.
//!
//! `serve` answers a batch of requests. Each request asks the `db` for the user, then
//! `service_a` and `service_b` for two pieces of the answer, and records itself with
//! `service_c`. This is the service of Part II, written the way async Rust usually
//! starts: every field of the context is an `Arc`, every request is a `tokio::spawn`ed
//! task with its own round of clones, and errors are printed inside tasks nobody awaits.
//!
//! The tests call `serve(&ctx, &ids)` with a context whose clients borrow local data and
//! keep their state in `Rc`, `Cell` and `RefCell`. Make them compile and pass: no `Arc`,
//! no `Send`, no `'static`, no `tokio::spawn`. Task and hints: README.md next to this file.

use std::fmt;
use std::sync::Arc;

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

// ANCHOR: context (the book quotes the code from here to the ANCHOR_END line)
/// A client for one backend service. The tests implement it with fakes.
pub trait Client {
    fn call(&self, id: u32) -> impl Future<Output = Result<String, ServiceError>> + Send;
}

/// Everything a request needs. Every field is an `Arc`, so every task can own a copy.
pub struct Context<C> {
    pub db: Arc<C>,
    pub service_a: Arc<C>,
    pub service_b: Arc<C>,
    pub service_c: Arc<C>,
}
// ANCHOR_END: context

// ANCHOR: serve (the book quotes the code from here to the ANCHOR_END line)
/// Answers every request in `ids`, concurrently, in the order asked.
pub async fn serve<C>(ctx: &Context<C>, ids: Vec<u32>) -> Result<Vec<Response>, ServiceError>
where
    C: Client + Send + Sync + 'static,
{
    let mut requests = Vec::new();
    for id in ids {
        // The clone dance: a spawned task must own everything it touches.
        let db = Arc::clone(&ctx.db);
        let service_a = Arc::clone(&ctx.service_a);
        let service_b = Arc::clone(&ctx.service_b);
        let service_c = Arc::clone(&ctx.service_c);
        requests.push(tokio::spawn(async move {
            let user = db.call(id).await?;
            // Two more tasks, so that the two sub-calls run at the same time.
            let a = tokio::spawn(async move { service_a.call(id).await });
            let b = tokio::spawn(async move { service_b.call(id).await });
            let a = a.await.expect("service_a panicked")?;
            let b = b.await.expect("service_b panicked")?;
            // Nobody needs to wait for the audit record: fire and forget.
            tokio::spawn(async move {
                if let Err(error) = service_c.call(id).await {
                    eprintln!("audit: {error}"); // printed, and lost
                }
            });
            Ok::<_, ServiceError>(Response { id, user, a, b })
        }));
    }
    let mut responses = Vec::new();
    for request in requests {
        match request.await.expect("a request panicked") {
            Ok(response) => responses.push(response),
            Err(error) => eprintln!("request failed: {error}"), // printed, and lost
        }
    }
    Ok(responses)
}
// ANCHOR_END: serve
