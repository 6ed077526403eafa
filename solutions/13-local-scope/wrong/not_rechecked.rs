//! Wrong: drains the inbox on every round, but returns `Pending` as soon as the running
//! set does. A job that spawns a child and then waits leaves the child in the inbox,
//! never polled, so no waker was handed to it: it only starts when something else wakes
//! the scope (here its parent, 100 ms later).
//! expect-fail: a_long_chain_of_jobs_starts_at_once, nested_jobs_start_at_once
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    loop {
        for job in self.inbox.take() {
            running.push(job(self));
        }
        match running.poll_next_unpin(cx) {
            Poll::Ready(Some(())) => {}
            Poll::Ready(None) => return Poll::Ready(()),
            Poll::Pending => return Poll::Pending,
        }
    }
}
