//! Polling by hand, on the test's own thread, with no runtime: for tests that count
//! allocations (a runtime allocates for itself) or run under Miri (which is slow, and
//! for which a runtime's threads and timers are noise).

use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

/// Polls `future` to the end with a waker that does nothing, on this thread, allocating
/// nothing itself. Meant for futures that make progress every time they are polled (such
/// as [`yield_once`]); after `max_polls` polls it panics, so a future that never finishes
/// fails the test instead of hanging it.
pub fn poll_to_end<F: Future>(max_polls: usize, future: F) -> F::Output {
    let mut future = pin!(future);
    for _ in 0..max_polls {
        if let Poll::Ready(output) = poll_once(future.as_mut()) {
            return output;
        }
    }
    panic!(
        "the future was still pending after {max_polls} polls: it waits for something \
         that never happens (or waits much longer than any correct answer)"
    )
}

/// Polls `future` once with a waker that does nothing.
pub fn poll_once<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}

/// A future that is pending once (after waking its waker) and then ready: the
/// smallest await point, runnable with [`poll_to_end`] or on any runtime.
pub fn yield_once() -> YieldOnce {
    YieldOnce { yielded: false }
}

/// See [`yield_once`].
#[must_use = "futures do nothing unless awaited"]
pub struct YieldOnce {
    yielded: bool,
}

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_a_future_that_yields() {
        let out = poll_to_end(10, async {
            yield_once().await;
            yield_once().await;
            7
        });
        assert_eq!(out, 7);
    }

    #[test]
    #[should_panic(expected = "still pending after 5 polls")]
    fn a_future_that_never_ends_fails() {
        poll_to_end(5, std::future::pending::<()>());
    }
}
