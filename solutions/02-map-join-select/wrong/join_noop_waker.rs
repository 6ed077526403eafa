//! Wrong: `Join` polls its children with a waker of its own, `Waker::noop()`, instead
//! of the task's `cx`. Polled by hand, every output is right; but a child that waits
//! for an event wakes the no-op waker, nobody tells the task, and a real executor never
//! polls it again.
//! expect-fail: composing_them_allocates_nothing, join_passes_the_tasks_waker_to_both_sides, join_polls_both_sides_on_every_poll, join_waits_for_the_slower_side, they_pass_the_waker_of_the_latest_poll, they_run_under_a_real_executor
//! expect-pattern: foreign-waker, lost-wake
//! replaces: join_poll

fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let a_done = this.a.poll_done(&mut cx);
    let b_done = this.b.poll_done(&mut cx);
    if a_done && b_done {
        Poll::Ready((this.a.take(), this.b.take()))
    } else {
        Poll::Pending
    }
}
