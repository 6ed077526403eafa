//! Wrong: takes the inbox once, at the top, and keeps the `RefMut` for the whole
//! function. This is moro-local 0.4's bug in miniature: a job that calls `spawn` while
//! it is polled asks for a second mutable borrow and panics ("already borrowed").
//! expect-fail: a_job_can_spawn_a_job, a_long_chain_of_jobs_starts_at_once, dropping_the_scope_drops_every_job, nested_jobs_run_concurrently, nested_jobs_start_at_once
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    let mut inbox = self.inbox.borrow_mut();
    loop {
        for job in inbox.drain(..) {
            running.push(job(self));
        }
        // The jobs run here, while `inbox` still holds the RefCell.
        match running.poll_next_unpin(cx) {
            Poll::Ready(Some(())) => {}
            Poll::Ready(None) if inbox.is_empty() => return Poll::Ready(()),
            Poll::Pending if inbox.is_empty() => return Poll::Pending,
            _ => {}
        }
    }
}
