//! Also right: when a job spawned more jobs during this poll, start them on the next one:
//! wake the scope and return `Pending`. Unlike `wrong/busy_wake.rs`, the wake-up comes
//! with progress (new jobs to start) and only then, so the paused clock still moves and
//! every job starts at the same virtual instant. It costs a trip through the scheduler
//! per level of nesting, where the solution's loop starts them all in one poll.
//! expect-pass
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    for job in self.inbox.take() {
        running.push(job(self));
    }
    loop {
        let polled = running.poll_next_unpin(cx);
        if !self.inbox.borrow().is_empty() {
            // New jobs, never polled yet: come back for them at once.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        match polled {
            Poll::Ready(Some(())) => {} // one job ended: poll the others again
            Poll::Ready(None) => return Poll::Ready(()),
            Poll::Pending => return Poll::Pending,
        }
    }
}
