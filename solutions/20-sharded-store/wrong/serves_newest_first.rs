//! Wrong: a shard's loop takes whatever has piled up in its queue at once (`recv_many`),
//! then serves the batch from its end with `pop`. Fewer wake-ups under load, but the
//! newest request goes first: a client that sends two writes to one key sees the older
//! one win. The test queues eight puts to one key behind a held shard; in the panic test,
//! a get queued after the put that panics is answered before it.
//! expect-fail: a_shard_serves_its_queue_first_come_first_served, a_shard_that_panics_fails_its_callers_and_run_says_so
//! replaces: serve

/// A shard's loop: serves its queue a batch at a time.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    let mut batch = Vec::new();
    while queue.recv_many(&mut batch, 64).await > 0 {
        while let Some(request) = batch.pop() {
            request.serve(partition);
        }
    }
}
