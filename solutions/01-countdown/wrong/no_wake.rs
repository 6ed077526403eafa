//! Wrong: counts down, but answers `Pending` without waking anyone. Polled by hand it
//! looks fine; an executor would never poll it again (the tests' guard turns that
//! hang into a failure).
//! expect-fail: wakes_once_per_pending_and_never_after_ready, wakes_the_waker_of_the_latest_poll, block_on_runs_it_to_the_end
//! expect-pattern: lost-wake
//! replaces: poll

fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
    if self.remaining == 0 {
        return Poll::Ready(());
    }
    self.remaining -= 1;
    Poll::Pending
}
