//! Wrong: wakes twice per `Pending`, once by reference and once through a clone.
//! Every wake-up schedules the task again, so an executor polls it twice as often as
//! it needs; the counting waker sees two wakes where one was due.
//! expect-fail: wakes_once_per_pending_and_never_after_ready, wakes_the_waker_of_the_latest_poll
//! replaces: poll

fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
    if self.remaining == 0 {
        return Poll::Ready(());
    }
    self.remaining -= 1;
    cx.waker().wake_by_ref();
    cx.waker().clone().wake();
    Poll::Pending
}
