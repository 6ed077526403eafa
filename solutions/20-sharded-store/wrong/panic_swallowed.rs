//! Wrong: the shard catches a panic and serves on. The partition may be half-changed (a
//! `RefCell` has no poisoning to warn anyone), later callers get answers from it as if
//! nothing happened, and `run` returns `Ok`: the panic is lost. Both panic tests see it.
//! expect-fail: a_shard_that_panics_fails_its_callers_and_run_says_so, run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: serve

/// A shard's loop: serves its queue, and survives a request that panics.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    while let Some(request) = queue.recv().await {
        let _ = catch_unwind(AssertUnwindSafe(|| request.serve(partition)));
    }
}
