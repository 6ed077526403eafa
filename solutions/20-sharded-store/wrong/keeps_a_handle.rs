//! Wrong: the thread keeps a handle of its own while the app runs on a clone. That handle
//! holds a sender to every shard's queue, so no queue ever closes, no loop ever ends, and
//! `run` never returns. Every test that runs the store fails soon after its last app has
//! finished, when the store's threads have all slept a tenth of a second, with a message
//! that names a sender still held.
//! expect-fail: a_call_for_a_key_this_shard_owns_is_served_on_the_spot, a_full_queue_refuses_calls_at_once, a_shard_serves_its_queue_first_come_first_served, a_shard_that_panics_fails_its_callers_and_run_says_so, an_idle_shard_sleeps_until_a_request_comes, each_key_sees_one_order_under_concurrent_clients, every_key_is_served_by_its_owner_and_seen_by_every_shard, len_asks_every_shard_before_it_awaits_an_answer, len_counts_every_shard_while_writes_go_on, len_counts_its_own_shard_without_a_message, len_fails_at_once_when_a_queue_is_full, run_drains_every_queue_and_joins_every_thread, run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: thread

/// One shard's thread: its runtime, its partition, its loop and its copy of the app.
fn on_thread<S: Partition, F: Future>(
    shard: usize,
    inbox: Inbox,
    queues: Vec<Queue>,
    make: &impl Fn(usize) -> S,
    app: &impl Fn(Store<S>) -> F,
) -> F::Output {
    let runtime = Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .expect("build the shard's runtime");
    let partition = Rc::new(RefCell::new(make(shard)));
    let store = Store {
        shard,
        partition: Rc::clone(&partition),
        queues: queues.into(),
    };
    runtime.block_on(async {
        let ((), output) = tokio::join!(serve(inbox, &partition), app(store.clone()));
        output
    })
}
