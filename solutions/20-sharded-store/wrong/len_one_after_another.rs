//! Wrong: `len` asks the shards one after the other: it sends shard 1 its question,
//! awaits the answer, and only then asks shard 2. Every count is right, but the hops add
//! up instead of overlapping, and a slow shard holds up the questions to all the others.
//! The test holds every shard still, polls `len()` once, and finds that only one shard was
//! asked before `len()` began to wait.
//! expect-fail: len_asks_every_shard_before_it_awaits_an_answer, len_fails_at_once_when_a_queue_is_full
//! replaces: len

/// How many keys the whole store holds: every shard's count, added up.
pub async fn len(&self) -> Result<usize, StoreError> {
    let mut total = self.partition.borrow().len();
    for shard in (0..self.shards()).filter(|&shard| shard != self.shard) {
        let (reply, answer) = oneshot::channel();
        self.send(shard, Request::Len { reply })?;
        total += wait(shard, answer).await?;
    }
    Ok(total)
}

/// Whether the whole store is empty (a `len` like any other).
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.len().await? == 0)
}
