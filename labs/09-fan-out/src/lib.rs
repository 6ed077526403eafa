//! Lab 09: fan out without `Arc`.
//!
//! `fan_out` asks a backend for many profiles at once. This is the shape most async
//! Rust code starts from: the context goes into an `Arc`, every request becomes a
//! detached `tokio::spawn`ed task, and a failed request is printed and forgotten.
//!
//! The tests call `fan_out(&ctx, &ids)` with a context that keeps its state in
//! `Rc` and `RefCell`. Make them compile and pass: no `Arc`, no `Send`, no
//! `'static`, no `tokio::spawn`. Task and hints: README.md next to this file.

use std::fmt;
use std::sync::Arc;

/// A user profile, as the backend returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub id: u32,
    pub name: String,
}

/// The backend could not produce the profile for `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    pub id: u32,
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "could not fetch profile {}", self.id)
    }
}

impl std::error::Error for FetchError {}

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
/// Whatever `fan_out` talks to. The tests implement it for their own `Context`.
pub trait Backend {
    fn fetch(&self, id: u32) -> impl Future<Output = Result<Profile, FetchError>> + Send;
}

/// Fetches the profile of every id in `ids`, concurrently, in the order asked.
pub async fn fan_out<B>(backend: Arc<B>, ids: Vec<u32>) -> Result<Vec<Profile>, FetchError>
where
    B: Backend + Send + Sync + 'static,
{
    let mut handles = Vec::new();
    for id in ids {
        let backend = Arc::clone(&backend);
        handles.push(tokio::spawn(async move { backend.fetch(id).await }));
    }
    let mut profiles = Vec::new();
    for handle in handles {
        match handle.await.expect("a request panicked") {
            Ok(profile) => profiles.push(profile),
            Err(error) => eprintln!("{error}"), // printed, and lost
        }
    }
    Ok(profiles)
}
// ANCHOR_END: starter
