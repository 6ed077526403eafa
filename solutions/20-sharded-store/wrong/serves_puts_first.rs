//! Wrong: the shard's loop takes a batch (`recv_many`) and applies its puts first, then
//! answers its gets and counts, "so that reads see the freshest data". Each group keeps its
//! order, so writes to a key still land in the order they were sent; but a get that was
//! queued before a put sees the value that put wrote, a value from its own future. The test
//! queues a get, eight puts to the same key and another get behind a held shard: the first
//! get must see nothing.
//! expect-fail: a_shard_serves_its_queue_first_come_first_served
//! replaces: serve

/// A shard's loop: serves each batch, its writes before its reads.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    let mut batch = Vec::new();
    while queue.recv_many(&mut batch, 64).await > 0 {
        let (puts, reads): (Vec<_>, Vec<_>) = batch
            .drain(..)
            .partition(|request| matches!(request, Request::Put { .. }));
        for request in puts.into_iter().chain(reads) {
            request.serve(partition);
        }
    }
}
