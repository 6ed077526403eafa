//! Wrong: empties the inbox once, before polling, and never looks at it again in this
//! call. A job that spawns a child and ends at once leaves the child in the inbox, and
//! the scope, seeing no job left running, ends without it.
//! expect-fail: a_job_can_spawn_a_job, a_long_chain_of_jobs_starts_at_once, nested_jobs_run_concurrently, nested_jobs_start_at_once
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    for job in self.inbox.take() {
        running.push(job(self));
    }
    loop {
        match running.poll_next_unpin(cx) {
            Poll::Ready(Some(())) => {}
            Poll::Ready(None) => return Poll::Ready(()),
            Poll::Pending => return Poll::Pending,
        }
    }
}
