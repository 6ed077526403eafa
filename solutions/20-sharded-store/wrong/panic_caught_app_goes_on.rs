//! Wrong: the shard's loop serves each request inside `catch_unwind`. When one panics, the
//! loop stops and drops its queue (callers get `Down`), and the panic is raised again once
//! the app has finished, so `run` still reports it; but meanwhile the app on that thread
//! goes on, reading and writing the partition that the panic left half changed. A shard that
//! panics stops, its app with it. The panic test lets shard 2's app wait while shard 2
//! panics, and records what the app does afterwards: it writes its own key, and succeeds.
//! expect-fail: a_shard_that_panics_fails_its_callers_and_run_says_so
//! replaces: thread

/// One shard's thread: its runtime, its partition, its loop and its copy of the app.
fn on_thread<S: Partition, F: Future>(
    shard: usize,
    inbox: Inbox,
    queues: Vec<Queue>,
    make: &impl Fn(usize) -> S,
    app: &impl Fn(Store<S>) -> F,
) -> F::Output {
    use std::panic::{self, AssertUnwindSafe};
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
    let mut caught = None;
    let output = runtime.block_on(async {
        let serving = async {
            let mut inbox = inbox;
            while let Some(request) = inbox.recv().await {
                let served = panic::catch_unwind(AssertUnwindSafe(|| request.serve(&partition)));
                if let Err(payload) = served {
                    // Stop serving: dropping the queue tells every caller Down.
                    caught = Some(payload);
                    return;
                }
            }
        };
        let ((), output) = tokio::join!(serving, app(store));
        output
    });
    // Raised again for run to see, once the app is done.
    if let Some(payload) = caught {
        panic::resume_unwind(payload);
    }
    output
}
