//! Wrong: once a request comes, the shard's loop lingers 2 ms "to gather a batch", then
//! serves the request and whatever else has queued meanwhile, in order. Idle shards sleep
//! and nothing is lost, but every hop to another shard now costs 2 ms more than it must:
//! the shard goes back to sleep with a request in hand. The idle test makes twenty calls,
//! one at a time, to a shard that sleeps, and counts how often its thread goes to sleep
//! meanwhile: once per call for a shard that serves what it is handed, twice for this one.
//! expect-fail: an_idle_shard_sleeps_until_a_request_comes
//! replaces: serve

/// A shard's loop: waits for a request, lingers for more, serves the batch in order.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    use std::time::Duration;
    while let Some(first) = queue.recv().await {
        tokio::time::sleep(Duration::from_millis(2)).await;
        first.serve(partition);
        while let Ok(request) = queue.try_recv() {
            request.serve(partition);
        }
    }
}
