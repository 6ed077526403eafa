//! Wrong: `serve` borrows and joins, but the context still holds its clients in `Arc`s
//! "just in case". The tests build the context from plain clients, so they do not compile.
//! expect-error: E0308
//! replaces: context

use std::sync::Arc;

pub trait Client {
    fn call(&self, id: u32) -> impl Future<Output = Result<String, ServiceError>>;
}

pub struct Context<C> {
    pub db: Arc<C>,
    pub service_a: Arc<C>,
    pub service_b: Arc<C>,
    pub service_c: Arc<C>,
}
