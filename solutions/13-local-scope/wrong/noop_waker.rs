//! Wrong: polls the jobs with a waker that does nothing (`Waker::noop()`), "since the
//! scope loops anyway". The jobs' timers fire and wake nobody, so after the first
//! `Pending` nothing ever polls the scope again. The tests catch that `Pending` at once:
//! it came with no way to be woken.
//! expect-fail: a_job_can_spawn_a_job, a_long_chain_of_jobs_starts_at_once, dropping_the_scope_drops_every_job, jobs_borrow_from_the_caller, jobs_run_concurrently, nested_jobs_run_concurrently, nested_jobs_start_at_once, the_scope_waits_for_every_job
//! expect-pattern: lost-wake
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, _cx: &mut Context<'_>) -> Poll<()> {
    let mut quiet = Context::from_waker(std::task::Waker::noop());
    loop {
        let new_jobs = self.inbox.take();
        for job in new_jobs {
            running.push(job(self));
        }
        let polled = running.poll_next_unpin(&mut quiet);
        if self.inbox.borrow().is_empty() {
            match polled {
                Poll::Ready(Some(())) => {}
                Poll::Ready(None) => return Poll::Ready(()),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
