//! Wrong: runs whatever jobs are ready right now and then reports them all done, so
//! the scope returns as soon as the body does, and drops the jobs still waiting.
//! `Pending` from the running set means "not yet", not "nothing left".
//! expect-fail: a_job_can_spawn_a_job, a_long_chain_of_jobs_starts_at_once, dropping_the_scope_drops_every_job, jobs_borrow_from_the_caller, jobs_run_concurrently, nested_jobs_run_concurrently, nested_jobs_start_at_once, the_scope_waits_for_every_job
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    for job in self.inbox.take() {
        running.push(job(self));
    }
    while let Poll::Ready(Some(())) = running.poll_next_unpin(cx) {}
    Poll::Ready(())
}
