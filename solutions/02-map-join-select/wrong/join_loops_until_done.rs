//! Wrong: polls both sides in a loop inside one `poll` until both are done, a blocking
//! join. With children that finish after a few polls it even returns the right pair,
//! on the first poll; with a child that waits for an event, `poll` never returns and
//! the thread spins (lab-support's `Gate` fails the test once it has been polled 10,000
//! times with nothing happening, rather than the watchdog after 10 s).
//! expect-fail: composing_them_allocates_nothing, join_passes_the_tasks_waker_to_both_sides, join_polls_both_sides_on_every_poll, join_waits_for_the_slower_side, ready_wakes_nobody, they_pass_the_waker_of_the_latest_poll, they_run_under_a_real_executor
//! replaces: join_poll

fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    loop {
        let a_done = this.a.poll_done(cx);
        let b_done = this.b.poll_done(cx);
        if a_done && b_done {
            return Poll::Ready((this.a.take(), this.b.take()));
        }
    }
}
