//! Solution to lab 01: a future by hand.

use std::pin::Pin;
use std::task::{Context, Poll};

// ANCHOR: solution
/// A future that is `Pending` `n` times, then `Ready(())`.
pub struct Countdown {
    /// How many more times `poll` answers `Pending`.
    remaining: u32,
}

impl Countdown {
    pub fn new(n: u32) -> Self {
        Countdown { remaining: n }
    }
}

impl Future for Countdown {
    type Output = ();

    // ANCHOR: poll
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.remaining == 0 {
            return Poll::Ready(());
        }
        self.remaining -= 1;
        // Nothing else will wake this task, so it asks for the next poll itself:
        // "I am not done, and I have arranged to be woken."
        cx.waker().wake_by_ref();
        Poll::Pending
    }
    // ANCHOR_END: poll
}
// ANCHOR_END: solution
