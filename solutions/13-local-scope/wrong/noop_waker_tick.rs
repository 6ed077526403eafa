//! Wrong: polls the jobs with a waker that does nothing (`Waker::noop()`), and arranges
//! a wake-up of its own instead: a 1 ms timer, started with the scope's waker and left
//! to fire (`mem::forget` keeps it registered). The jobs' timers wake nobody; every
//! millisecond the scope looks again. Each job is seen within a millisecond of its end,
//! so the timing tests pass, but the tests count the polls: 100 ms of waiting cost
//! about 100 of them, where a scope woken by its jobs needs 2 or 3.
//! expect-fail: a_job_can_spawn_a_job, dropping_the_scope_drops_every_job, jobs_run_concurrently, nested_jobs_run_concurrently, nested_jobs_start_at_once, the_scope_waits_for_every_job
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    let mut quiet = Context::from_waker(std::task::Waker::noop());
    loop {
        for job in self.inbox.take() {
            running.push(job(self));
        }
        let polled = running.poll_next_unpin(&mut quiet);
        if self.inbox.borrow().is_empty() {
            match polled {
                Poll::Ready(Some(())) => {}
                Poll::Ready(None) => return Poll::Ready(()),
                Poll::Pending => {
                    // "Look again in a millisecond."
                    let mut tick =
                        Box::pin(tokio::time::sleep(std::time::Duration::from_millis(1)));
                    let _ = tick.as_mut().poll(cx);
                    std::mem::forget(tick);
                    return Poll::Pending;
                }
            }
        }
    }
}
