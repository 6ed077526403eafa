//! Wrong: wakes the task "to be safe" whenever one side is done and the other is still
//! running. The running side will wake the task itself when it can go on; the extra
//! wake-up only makes the executor poll the `Join` for nothing.
//! expect-fail: join_passes_the_tasks_waker_to_both_sides
//! replaces: join_poll

fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    let a_done = this.a.poll_done(cx);
    let b_done = this.b.poll_done(cx);
    if a_done && b_done {
        Poll::Ready((this.a.take(), this.b.take()))
    } else {
        if a_done || b_done {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}
