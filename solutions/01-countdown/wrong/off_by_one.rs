//! Wrong: counts down first and checks afterwards, so `Countdown::new(n)` is
//! `Pending` only `n - 1` times.
//! expect-fail: pending_exactly_n_times_then_ready, wakes_once_per_pending_and_never_after_ready, wakes_the_waker_of_the_latest_poll, block_on_runs_it_to_the_end
//! replaces: poll

fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
    self.remaining = self.remaining.saturating_sub(1);
    if self.remaining == 0 {
        return Poll::Ready(());
    }
    cx.waker().wake_by_ref();
    Poll::Pending
}
