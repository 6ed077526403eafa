//! Wrong: borrows instead of spawning, but the trait still promises `Send` futures.
//! The tests' `Context` keeps its state in `Rc` and `RefCell`, so its `fetch` future
//! is not `Send` and the tests do not compile.
//! expect-error: future cannot be sent between threads safely
//! replaces: solution

pub trait Backend {
    fn fetch(&self, id: u32) -> impl Future<Output = Result<Profile, FetchError>> + Send;
}

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
