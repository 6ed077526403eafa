//! Wrong (for this lab): the threads hand back the apps' results through an
//! `Arc<Mutex<Vec<_>>>`. Every test passes, but the lock and the atomic count are there
//! out of habit: a scoped thread's `join` already returns its result, in order.
//! expect-lesson: Arc, Mutex
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
    use std::sync::{Arc, Mutex};
    let (senders, inboxes): (Vec<_>, Vec<_>) =
        (0..config.shards).map(|_| queue(config.queue)).unzip();
    let results = Arc::new(Mutex::new(
        (0..config.shards).map(|_| None).collect::<Vec<_>>(),
    ));
    let (make, app) = (&make, &app);
    let panicked = thread::scope(|scope| {
        let mut threads = Vec::new();
        for (shard, inbox) in inboxes.into_iter().enumerate() {
            let queues = senders.clone();
            let results = Arc::clone(&results);
            threads.push(scope.spawn(move || {
                let output = on_thread(shard, inbox, queues, make, app);
                results.lock().unwrap()[shard] = Some(output);
            }));
        }
        drop(senders);
        let joined: Vec<_> = threads.into_iter().map(|t| t.join()).collect();
        joined.iter().position(Result::is_err)
    });
    if let Some(shard) = panicked {
        return Err(StoreError::Panicked(shard));
    }
    let outputs = std::mem::take(&mut *results.lock().unwrap());
    Ok(outputs
        .into_iter()
        .map(|o| o.expect("every app finished"))
        .collect())
}
