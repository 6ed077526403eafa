//! Wrong: starts the new jobs and polls the set once per call, and reads `Ready(Some)`
//! (one job ended) as "not done yet": `Pending`. But the set has used up the wake-ups
//! of the other jobs that were ready at the same moment; nothing will wake the scope
//! for them again, and they wait for ever.
//! expect-fail: a_job_can_spawn_a_job, a_long_chain_of_jobs_starts_at_once, jobs_borrow_from_the_caller, jobs_run_concurrently, nested_jobs_run_concurrently, nested_jobs_start_at_once, the_scope_waits_for_every_job
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    for job in self.inbox.take() {
        running.push(job(self));
    }
    match running.poll_next_unpin(cx) {
        Poll::Ready(None) if self.inbox.borrow().is_empty() => Poll::Ready(()),
        _ => Poll::Pending,
    }
}
