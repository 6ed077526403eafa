//! Wrong: wakes the waker on every poll, the last one included. `block_on` does not
//! mind (it polls a finished task no more), but every `Ready` costs a useless wake-up,
//! and a waker counted by hand shows it.
//! expect-fail: zero_is_ready_on_the_first_poll, wakes_once_per_pending_and_never_after_ready
//! replaces: poll

fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
    cx.waker().wake_by_ref();
    if self.remaining == 0 {
        return Poll::Ready(());
    }
    self.remaining -= 1;
    Poll::Pending
}
