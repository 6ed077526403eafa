//! Wrong: `len` offers a count to every other shard first, as it should, but keeps each
//! offer's result and goes through them in shard order, awaiting each answer before it
//! looks at the next result. A `Busy` from a shard above one that is slow comes back only
//! once the slow one has answered: the caller waits although its count was refused at
//! once. The test holds shards 1 and 2 still, fills shard 2's queue, and polls `len()` on
//! shard 0 once: it must already say `Busy(2)`.
//! expect-fail: len_fails_at_once_when_a_queue_is_full
//! replaces: len

/// How many keys the whole store holds: every shard's count, added up.
pub async fn len(&self) -> Result<usize, StoreError> {
    let mut offers = Vec::with_capacity(self.shards());
    for shard in (0..self.shards()).filter(|&shard| shard != self.shard) {
        let (reply, answer) = oneshot::channel();
        let offered = self.send(shard, Request::Len { reply });
        offers.push((shard, offered, answer));
    }
    let mut total = self.partition.borrow().len();
    for (shard, offered, answer) in offers {
        offered?;
        total += wait(shard, answer).await?;
    }
    Ok(total)
}

/// Whether the whole store is empty (a `len` like any other).
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.len().await? == 0)
}
