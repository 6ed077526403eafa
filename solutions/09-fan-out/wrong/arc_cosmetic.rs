//! Wrong: borrows the context and joins the requests, so every test passes, but an `Arc`
//! stays "just in case", under another name. `cargo labs check` reports the lab as not
//! done: clippy finds the type behind the renamed import.
//! expect-lesson: Arc
//! replaces: fan_out

use std::sync::Arc as Shared;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let ids: Shared<[u32]> = ids.into();
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
