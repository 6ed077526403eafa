//! Wrong: goes round the inbox a fixed number of times, "jobs never nest more than a few
//! levels deep". Three nested spawns fit in four rounds, so the tests that nest three
//! deep pass; a chain of 100 jobs, each spawned by the one before, starts four at a time,
//! one batch per wake-up. Go round until the inbox stays empty, however long that takes.
//! expect-fail: a_long_chain_of_jobs_starts_at_once
//! replaces: solution

fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
    for _round in 0..4 {
        for job in self.inbox.take() {
            running.push(job(self));
        }
        while let Poll::Ready(Some(())) = running.poll_next_unpin(cx) {}
        if self.inbox.borrow().is_empty() {
            break;
        }
    }
    if running.is_empty() && self.inbox.borrow().is_empty() {
        Poll::Ready(())
    } else {
        Poll::Pending
    }
}
