//! Wrong: when its own app ends, a shard serves what is in its queue at that moment and
//! stops. It looks like a drain, but other shards' apps are still running and still
//! calling it: their later calls find the shard gone (`Down`). A shard may stop only when
//! every handle on the store is gone, which is when `recv` says `None`.
//! expect-fail: an_idle_shard_sleeps_until_a_request_comes, run_drains_every_queue_and_joins_every_thread
//! replaces: thread

/// One shard's thread: its runtime, its partition, its loop and its copy of the app.
fn on_thread<S: Partition, F: Future>(
    shard: usize,
    mut inbox: Inbox,
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
        let output = {
            let serving = async {
                while let Some(request) = inbox.recv().await {
                    request.serve(&partition);
                }
            };
            tokio::select! {
                () = serving => unreachable!("the queue closes only after the app"),
                output = app(store) => output,
            }
        };
        // The app is done: serve what is left, then stop.
        while let Ok(request) = inbox.try_recv() {
            request.serve(&partition);
        }
        output
    })
}
