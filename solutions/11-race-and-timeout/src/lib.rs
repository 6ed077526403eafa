//! Solution to lab 11: races and timeouts.

use std::fmt;
use std::pin::pin;
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

/// A key-value store. The tests implement it with `Cell` and `RefCell` state.
pub trait Store {
    fn get(&self, key: &str) -> impl Future<Output = Result<String, Missing>>;
}

// ANCHOR: connection
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

// ANCHOR: read_lines
/// Reads every line from `input` until it ends, and returns them in order. While it
/// waits, it calls `heartbeat()` each time `every` passes without a line or a heartbeat.
pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    // One read for the whole wait: created before the loop, polled through `&mut`, so
    // a heartbeat that wins a round does not drop it, nor the pieces it holds.
    let mut next = pin!(input.next_line());
    loop {
        tokio::select! {
            line = &mut next => match line {
                Some(line) => {
                    lines.push(line);
                    next.set(input.next_line()); // that read is done: start the next one
                }
                None => return lines,
            },
            // A fresh timer each round: `every` from the last line or heartbeat.
            () = tokio::time::sleep(every) => heartbeat(),
        }
    }
}
// ANCHOR_END: read_lines
// ANCHOR_END: solution
