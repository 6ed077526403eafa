//! A watchdog the test itself can trip early. [`crate::within`] fails a test that has
//! not finished after its limit. Some tests know sooner that something is stuck, but
//! cannot fail by panicking: a thread blocked in `std::thread::scope`, waiting for a
//! scoped thread that never ends, cannot unwind. [`within_tripwire`] hands the body a
//! [`Tripwire`]; [`Tripwire::trip`] fails the test at once with its message, wherever the
//! body's thread is stuck. A server's test harness, for example, trips it when the server
//! has not stopped some seconds after being told to, and names the likely cause, instead
//! of leaving every such test to its overall limit.

use std::panic;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// Fails the test that [`within_tripwire`] watches, from any thread.
#[derive(Clone, Debug)]
pub struct Tripwire(mpsc::Sender<Option<String>>);

impl Tripwire {
    /// Fails the watched test now with `why` (the first trip wins). The caller may stay
    /// stuck: the test is already reported.
    pub fn trip(&self, why: impl Into<String>) {
        let _ = self.0.send(Some(why.into()));
    }
}

/// Like [`crate::within`]: runs `f` on a fresh thread and fails the test if it has not
/// returned after `limit`, with `why_stuck`. `f` also gets a [`Tripwire`], which fails the
/// test at once with its own message.
pub fn within_tripwire<T: Send + 'static>(
    limit: Duration,
    why_stuck: &str,
    f: impl FnOnce(Tripwire) -> T + Send + 'static,
) -> T {
    let (events, heard) = mpsc::channel();
    let (done, result) = mpsc::channel();
    let tripwire = Tripwire(events.clone());
    let recording = crate::timeline::carry();
    let handle = thread::Builder::new()
        .name("test body (watchdog)".into())
        .spawn(move || {
            let _recording = recording.enter();
            let value = f(tripwire);
            let _ = done.send(value);
            let _ = events.send(None);
        })
        .expect("spawn the test body's thread");
    match heard.recv_timeout(limit) {
        Ok(None) => result.recv().expect("the body sends its value first"),
        Ok(Some(why)) => panic!("{why}"),
        // Every sender is gone and no value came: the body panicked. Show its panic.
        Err(RecvTimeoutError::Disconnected) => match handle.join() {
            Err(payload) => panic::resume_unwind(payload),
            Ok(()) => unreachable!("the thread sends before it ends"),
        },
        Err(RecvTimeoutError::Timeout) => {
            panic!("still running after {limit:?} of wall-clock time: {why_stuck}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_value() {
        assert_eq!(within_tripwire(Duration::from_secs(5), "never", |_| 42), 42);
    }

    #[test]
    #[should_panic(expected = "tripped: stuck in a scope")]
    fn a_trip_fails_the_test_while_the_body_is_stuck() {
        within_tripwire(Duration::from_secs(3600), "never", |trip| {
            thread::scope(|s| {
                s.spawn(|| thread::sleep(Duration::from_secs(3600)));
                trip.trip("tripped: stuck in a scope");
            })
        })
    }

    #[test]
    #[should_panic(expected = "boom")]
    fn shows_the_body_panic() {
        within_tripwire(Duration::from_secs(5), "never", |_| -> () {
            panic!("boom")
        })
    }

    #[test]
    #[should_panic(expected = "still running after")]
    fn fails_a_hang() {
        within_tripwire(Duration::from_millis(50), "a hang", |_| {
            thread::sleep(Duration::from_secs(3600))
        })
    }
}
