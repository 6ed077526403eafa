//! Wrong: the right loop, plus a wake-up of its own before every `Pending`, "so that the
//! scope looks at its inbox again soon". The scope is then always ready to run, so
//! tokio's paused clock never moves and no job's timer fires: without the tests' poll
//! budget this hangs them for ever. Every `Pending` must wait for a real wake-up.
//! expect-fail: a_job_can_spawn_a_job, a_long_chain_of_jobs_starts_at_once, dropping_the_scope_drops_every_job, jobs_borrow_from_the_caller, jobs_run_concurrently, nested_jobs_run_concurrently, nested_jobs_start_at_once, the_scope_waits_for_every_job
//! expect-pattern: busy-loop
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    loop {
        let new_jobs = self.inbox.take();
        for job in new_jobs {
            running.push(job(self));
        }
        let polled = running.poll_next_unpin(cx);
        if self.inbox.borrow().is_empty() {
            match polled {
                Poll::Ready(Some(())) => {}
                Poll::Ready(None) => return Poll::Ready(()),
                Poll::Pending => {
                    cx.waker().wake_by_ref(); // "just in case"
                    return Poll::Pending;
                }
            }
        }
    }
}
