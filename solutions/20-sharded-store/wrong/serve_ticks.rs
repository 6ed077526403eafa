//! Wrong: the shard's loop waits for its queue with a timeout, `timeout(10 ms, recv())`,
//! and goes round again when it runs out, "so that the loop never blocks for good". It
//! answers every call in order, and it stops when the queue closes; but a shard that
//! nobody calls wakes a hundred times a second, for nothing, on every core the store has.
//! The idle test watches the threads of two shards nobody calls (one whose app waits, one
//! whose app has ended) for 150 ms: the first tick is a wake-up, and the test fails there.
//! expect-fail: an_idle_shard_sleeps_until_a_request_comes
//! replaces: serve

/// A shard's loop: waits for a request, but never longer than 10 ms at a time.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    use std::time::Duration;
    loop {
        match tokio::time::timeout(Duration::from_millis(10), queue.recv()).await {
            Ok(Some(request)) => request.serve(partition),
            Ok(None) => break,
            // Nothing came: look again.
            Err(_elapsed) => {}
        }
    }
}
