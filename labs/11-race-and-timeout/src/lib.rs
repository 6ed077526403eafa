//! Lab 11: races and timeouts.
//!
//! Four small functions, each about a fixed number of futures: race two replicas,
//! put a deadline on a future, run two lookups side by side, and read lines while
//! sending heartbeats. The first three await one future after the other: make them
//! run together, inside the function, with no task spawned. The fourth races, but
//! loses data when it does. Task and hints: README.md next to this file.

use std::fmt;
use std::time::Duration;

use tokio::time::Instant;

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

/// A key-value store. The tests implement it with `Cell` and `RefCell` state.
pub trait Store {
    fn get(&self, key: &str) -> impl Future<Output = Result<String, Missing>>;
}

// ANCHOR: connection (the book quotes the code from here to the ANCHOR_END line)
/// A connection that delivers text lines, each of which may arrive in several pieces.
/// The tests implement it.
pub trait Connection {
    /// Waits for the next whole line (without its `\n`); `None` once the input has ended.
    ///
    /// **Not cancel safe**: the future collects the pieces of a line as they arrive. If
    /// it is dropped before the line is whole, the pieces it took are lost.
    fn next_line(&self) -> impl Future<Output = Option<String>>;
}
// ANCHOR_END: connection

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
/// Asks both replicas for `key` and returns the first answer, `Ok` or `Err`.
/// The slower request must not keep running.
pub async fn first_answer<S: Store>(primary: &S, backup: &S, key: &str) -> Result<String, Missing> {
    // Ask the primary; only ask the backup if the primary failed.
    match primary.get(key).await {
        Ok(value) => Ok(value),
        Err(_) => backup.get(key).await,
    }
}

/// Runs `fut`, but gives up after `limit`: the future is dropped at that moment.
pub async fn with_timeout<F: Future>(limit: Duration, fut: F) -> Result<F::Output, TimedOut> {
    let start = Instant::now();
    let output = fut.await;
    if start.elapsed() > limit {
        return Err(TimedOut);
    }
    Ok(output)
}

/// Looks up `a` and `b` at the same time. The first error comes back at once,
/// and the other lookup stops.
pub async fn both<S: Store>(store: &S, a: &str, b: &str) -> Result<(String, String), Missing> {
    let first = store.get(a).await?;
    let second = store.get(b).await?;
    Ok((first, second))
}

/// Reads every line from `input` until it ends, and returns them in order. While it
/// waits, it calls `heartbeat()` each time `every` passes without a line or a heartbeat.
pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        tokio::select! {
            line = input.next_line() => match line {
                Some(line) => lines.push(line),
                None => return lines,
            },
            () = tokio::time::sleep(every) => heartbeat(),
        }
    }
}
// ANCHOR_END: starter
