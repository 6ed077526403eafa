//! Wrong: polls the children with `Waker::noop()`, and makes up for the lost wake-ups
//! by waking the task on every `Pending`. Nothing hangs any more, and every test that
//! only counts outputs passes; but the executor now polls the task in a loop while it
//! waits (busy polling), and a counting waker sees a wake-up where nothing happened.
//! expect-fail: join_passes_the_tasks_waker_to_both_sides, they_pass_the_waker_of_the_latest_poll
//! expect-pattern: foreign-waker
//! replaces: join_poll

fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    let mut noop = Context::from_waker(std::task::Waker::noop());
    let a_done = this.a.poll_done(&mut noop);
    let b_done = this.b.poll_done(&mut noop);
    if a_done && b_done {
        Poll::Ready((this.a.take(), this.b.take()))
    } else {
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
