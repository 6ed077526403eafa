//! Wrong: every shard is a task on the caller's thread, not a thread of its own. It keeps
//! the messages and the queues, but one core does all the work, and one partition that blocks
//! its thread blocks every shard with it: the tests that hold a shard still find it held
//! on the very thread that must let it go, and the ownership test finds one thread.
//! expect-fail: a_full_queue_refuses_calls_at_once, a_shard_serves_its_queue_first_come_first_served, a_shard_that_panics_fails_its_callers_and_run_says_so, an_idle_shard_sleeps_until_a_request_comes, every_key_is_served_by_its_owner_and_seen_by_every_shard, len_asks_every_shard_before_it_awaits_an_answer, len_counts_its_own_shard_without_a_message, len_fails_at_once_when_a_queue_is_full, run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: run

/// Runs the store: every shard a task on one local runtime.
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
    let runtime = Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .expect("build the runtime");
    let (make, app) = (&make, &app);
    let shards = inboxes.into_iter().enumerate().map(|(shard, inbox)| {
        let partition = Rc::new(RefCell::new(make(shard)));
        let store = Store {
            shard,
            partition: Rc::clone(&partition),
            queues: senders.clone().into(),
        };
        async move {
            let ((), output) = tokio::join!(serve(inbox, &partition), app(store));
            output
        }
    });
    let shards: Vec<_> = shards.collect();
    drop(senders);
    Ok(runtime.block_on(futures::future::join_all(shards)))
}
