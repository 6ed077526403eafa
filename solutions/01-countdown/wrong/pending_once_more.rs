//! Wrong: the off-by-one the other way. A `done` flag is set when the count reaches
//! zero, and `Ready` waits for the poll after that: `Countdown::new(n)` is `Pending`
//! `n + 1` times, and `Countdown::new(0)` is not ready at once.
//! expect-fail: zero_is_ready_on_the_first_poll, pending_exactly_n_times_then_ready, wakes_once_per_pending_and_never_after_ready, block_on_runs_it_to_the_end
//! replaces: solution

/// A future that is `Pending` `n` times, then `Ready(())`.
pub struct Countdown {
    remaining: u32,
    done: bool,
}

impl Countdown {
    pub fn new(n: u32) -> Self {
        Countdown {
            remaining: n,
            done: false,
        }
    }
}

impl Future for Countdown {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        if self.remaining == 0 {
            self.done = true;
        } else {
            self.remaining -= 1;
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
