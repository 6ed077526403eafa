//! Wrong: `&&` short-circuits, so `b` is polled only once `a` is done. The output is
//! right, but the two sides run one after the other, not together, so the composed
//! future also needs more polls than it should.
//! expect-fail: composing_them_allocates_nothing, join_passes_the_tasks_waker_to_both_sides, join_polls_both_sides_on_every_poll, they_pass_the_waker_of_the_latest_poll, they_run_under_a_real_executor
//! replaces: join_poll

fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    if this.a.poll_done(cx) && this.b.poll_done(cx) {
        Poll::Ready((this.a.take(), this.b.take()))
    } else {
        Poll::Pending
    }
}
