//! Wrong: when several shards panic, `run` reports the last one it joined, the
//! highest-numbered, because each failed join overwrites the one before. The error is
//! still an error, but the documented rule is the lowest-numbered shard that panicked,
//! so that the same failure always gives the same report. The test makes shards 2, 1 and 3
//! panic, in that order.
//! expect-fail: run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: run

/// Runs the store: one thread per shard; returns the apps' results in shard order.
pub fn run<S, M, A, F>(config: &Config, make: M, app: A) -> Result<Vec<F::Output>, StoreError>
where
    S: Partition,
    M: Fn(usize) -> S + Sync,
    A: Fn(Store<S>) -> F + Sync,
    F: Future,
    F::Output: Send,
{
    let (senders, inboxes): (Vec<_>, Vec<_>) =
        (0..config.shards).map(|_| queue(config.queue)).unzip();
    let (make, app) = (&make, &app);
    thread::scope(move |scope| {
        let mut threads = Vec::with_capacity(config.shards);
        for (shard, inbox) in inboxes.into_iter().enumerate() {
            let queues = senders.clone();
            threads.push(scope.spawn(move || on_thread(shard, inbox, queues, make, app)));
        }
        drop(senders);
        let mut outputs = Vec::with_capacity(threads.len());
        let mut panicked = None;
        for (shard, thread) in threads.into_iter().enumerate() {
            match thread.join() {
                Ok(output) => outputs.push(output),
                Err(_) => panicked = Some(shard),
            }
        }
        match panicked {
            Some(shard) => Err(StoreError::Panicked(shard)),
            None => Ok(outputs),
        }
    })
}
