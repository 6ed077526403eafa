//! Wrong: unbounded queues. A caller is never refused, so a shard that is stuck, or
//! slower than its callers, takes in requests (and memory, and latency) without limit.
//! Neither ten calls nor a `len()` to a held shard is ever refused.
//! expect-fail: a_full_queue_refuses_calls_at_once, len_fails_at_once_when_a_queue_is_full
//! replaces: queue

/// The sending end of a shard's queue, and the shard's end.
type Queue = mpsc::UnboundedSender<Request>;
type Inbox = mpsc::UnboundedReceiver<Request>;

/// A shard's queue. Big enough for anything.
fn queue(_capacity: usize) -> (Queue, Inbox) {
    mpsc::unbounded_channel()
}

/// Puts a request on `shard`'s queue: it only fails if the shard has stopped.
fn offer(queue: &Queue, shard: usize, request: Request) -> Result<(), StoreError> {
    queue.send(request).map_err(|_| StoreError::Down(shard))
}
