//! Wrong: `run` keeps the threads' handles in a `HashMap` keyed by shard, joins them by
//! walking the map, sorts the outputs back into shard order, and reports the first panic
//! the walk meets. The outputs are right; but a `HashMap` walks its keys in an order
//! drawn at random for every map, so when several shards panic, the error names a
//! different one from run to run. The test makes seven of eight shards panic, six times
//! over: `run` must say `Panicked(1)` every time.
//! expect-fail: run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: run

/// Runs the store: one thread per shard, each with its own runtime, its own partition
/// (`make(shard)`, built on that thread) and its own copy of the app (`app(store)`).
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
        let mut threads = HashMap::new();
        for (shard, inbox) in inboxes.into_iter().enumerate() {
            let queues = senders.clone();
            let thread = thread::Builder::new()
                .name(format!("shard-{shard}"))
                .spawn_scoped(scope, move || on_thread(shard, inbox, queues, make, app))
                .expect("start a shard's thread");
            threads.insert(shard, thread);
        }
        drop(senders);
        let mut outputs = Vec::with_capacity(threads.len());
        let mut panicked = None;
        for (shard, thread) in threads {
            match thread.join() {
                Ok(output) => outputs.push((shard, output)),
                Err(_) => {
                    panicked.get_or_insert(shard);
                }
            }
        }
        match panicked {
            Some(shard) => Err(StoreError::Panicked(shard)),
            None => {
                outputs.sort_by_key(|(shard, _)| *shard);
                Ok(outputs.into_iter().map(|(_, output)| output).collect())
            }
        }
    })
}
