//! Wrong: keeps each poll's waker and wakes it on the *next* poll, so the first
//! `Pending` wakes nobody, and a real executor never comes back. Because the future
//! keeps a clone, a guard that trusts kept wakers would wait forever; the test's guard
//! knows a countdown waits for nothing else, and fails at once.
//! expect-fail: wakes_once_per_pending_and_never_after_ready, wakes_the_waker_of_the_latest_poll, block_on_runs_it_to_the_end
//! replaces: solution

use std::task::Waker;

/// A future that is `Pending` `n` times, then `Ready(())`.
pub struct Countdown {
    remaining: u32,
    waker: Option<Waker>,
}

impl Countdown {
    pub fn new(n: u32) -> Self {
        Countdown {
            remaining: n,
            waker: None,
        }
    }
}

impl Future for Countdown {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(previous) = self.waker.replace(cx.waker().clone()) {
            previous.wake();
        }
        if self.remaining == 0 {
            return Poll::Ready(());
        }
        self.remaining -= 1;
        Poll::Pending
    }
}
