//! Wrong: drops `tokio::spawn` but keeps the `Arc` and the owned ids in the signature.
//! The body is fine; the tests hand over `&Context` and `&[u32]`, so they do not compile.
//! expect-error: E0308
//! replaces: fan_out

use std::sync::Arc;

pub async fn fan_out<B: Backend>(
    backend: Arc<B>,
    ids: Vec<u32>,
) -> Result<Vec<Profile>, FetchError> {
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
