//! Solution to lab 11: races and timeouts.

use std::fmt;
use std::time::Duration;

/// The store has no value for `key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub key: String,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no value for {:?}", self.key)
    }
}

impl std::error::Error for Missing {}

/// `with_timeout` gave up: the future did not finish in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

/// A key-value store. The tests implement it with `Rc` and `Cell` state.
pub trait Store {
    fn get(&self, key: &str) -> impl Future<Output = Result<String, Missing>>;
}

// ANCHOR: solution
// ANCHOR: first_answer
/// Asks both replicas for `key` and returns the first answer, `Ok` or `Err`.
/// The slower request must not keep running.
pub async fn first_answer<S: Store>(primary: &S, backup: &S, key: &str) -> Result<String, Missing> {
    // Both lookups are polled by this one future. When one finishes, `select!`
    // returns its answer and drops the other: that drop is the cancellation.
    tokio::select! {
        biased; // on a tie, prefer the primary (and poll it first)
        answer = primary.get(key) => answer,
        answer = backup.get(key) => answer,
    }
}
// ANCHOR_END: first_answer

// ANCHOR: with_timeout
/// Runs `fut`, but gives up after `limit`: the future is dropped at that moment.
pub async fn with_timeout<F: Future>(limit: Duration, fut: F) -> Result<F::Output, TimedOut> {
    // A race between `fut` and a timer. `fut` may borrow: nothing here is spawned.
    tokio::time::timeout(limit, fut)
        .await
        .map_err(|_elapsed| TimedOut)
}
// ANCHOR_END: with_timeout

// ANCHOR: both
/// Looks up `a` and `b` at the same time. The first error comes back at once,
/// and the other lookup stops.
pub async fn both<S: Store>(store: &S, a: &str, b: &str) -> Result<(String, String), Missing> {
    futures::try_join!(store.get(a), store.get(b))
}
// ANCHOR_END: both
// ANCHOR_END: solution
