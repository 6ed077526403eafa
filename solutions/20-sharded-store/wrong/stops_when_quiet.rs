//! Wrong: once its own app has ended, a shard serves on only while requests keep coming,
//! and stops after 50 ms without one ("its app is done, and nobody seems to need it").
//! While the other apps call it steadily nothing is lost; but an app that calls it later,
//! after a pause, finds it gone (`Down`). A shard serves until every handle on the store is
//! gone, not until its queue has been quiet for a while. The idle test ends shard 2's app
//! at once and watches shard 2's thread for 150 ms while nobody calls it: it ends.
//! expect-fail: an_idle_shard_sleeps_until_a_request_comes
//! may-also-fail: run_drains_every_queue_and_joins_every_thread (it ends shard 0's app at once while three apps call shard 0 600 times: on a machine so loaded that their calls pause for 50 ms, the shard stops in the gap)
//! replaces: thread

/// One shard's thread: its runtime, its partition, its loop and its copy of the app.
fn on_thread<S: Partition, F: Future>(
    shard: usize,
    inbox: Inbox,
    queues: Vec<Queue>,
    make: &impl Fn(usize) -> S,
    app: &impl Fn(Store<S>) -> F,
) -> F::Output {
    use std::time::Duration;
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
        let mut inbox = inbox;
        // Serve while the app runs...
        let output = {
            let serving = async {
                while let Some(request) = inbox.recv().await {
                    request.serve(&partition);
                }
            };
            tokio::select! {
                output = app(store) => output,
                () = serving => unreachable!("this shard's own app holds a sender"),
            }
        };
        // ...then only while requests keep coming.
        let quiet = Duration::from_millis(50);
        while let Ok(Some(request)) = tokio::time::timeout(quiet, inbox.recv()).await {
            request.serve(&partition);
        }
        output
    })
}
