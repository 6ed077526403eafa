//! Wrong: keeps the waker of the first poll and wakes that one ever after. A future
//! that moves to another task or combinator between two polls is handed a different
//! waker; only the latest one is sure to reach whoever polls it now.
//! expect-fail: wakes_the_waker_of_the_latest_poll, block_on_runs_it_to_the_end
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
        if self.remaining == 0 {
            return Poll::Ready(());
        }
        self.remaining -= 1;
        let waker = self.waker.get_or_insert_with(|| cx.waker().clone());
        waker.wake_by_ref();
        Poll::Pending
    }
}
