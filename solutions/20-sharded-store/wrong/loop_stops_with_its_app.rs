//! Wrong: a shard stops serving as soon as its own app ends. Requests that other shards'
//! apps send it afterwards, or that were still in its queue, are dropped unanswered:
//! shutdown loses calls instead of draining them.
//! expect-fail: an_idle_shard_sleeps_until_a_request_comes, run_drains_every_queue_and_joins_every_thread
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
        tokio::select! {
            () = serve(inbox, &partition) => unreachable!("the queue closes only after the app"),
            output = app(store) => output, // the app is done: so is this shard
        }
    })
}
