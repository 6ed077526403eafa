//! Solution to lab 09: fan out without `Arc`.

use std::fmt;

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

// ANCHOR: solution
/// Whatever `fan_out` talks to. The tests implement it for their own `Context`.
pub trait Backend {
    fn fetch(&self, id: u32) -> impl Future<Output = Result<Profile, FetchError>>;
}

// ANCHOR: fan_out
/// Fetches the profile of every id in `ids`, concurrently, in the order asked.
/// Returns the first error as soon as it happens; the other requests are dropped.
pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
// ANCHOR_END: fan_out
// ANCHOR_END: solution
