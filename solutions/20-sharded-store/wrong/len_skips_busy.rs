//! Wrong: `len` leaves out a shard whose queue is full and counts the others. It never
//! waits and never fails, but its answer is a count of part of the store, given as if it
//! were the whole. The test fills a held shard's queue, and `len()` answers `Ok` instead
//! of `Busy`.
//! expect-fail: len_fails_at_once_when_a_queue_is_full
//! replaces: len

/// How many keys the whole store holds: every shard's count, added up.
pub async fn len(&self) -> Result<usize, StoreError> {
    let mut answers = Vec::with_capacity(self.shards());
    for shard in (0..self.shards()).filter(|&shard| shard != self.shard) {
        let (reply, answer) = oneshot::channel();
        match self.send(shard, Request::Len { reply }) {
            Ok(()) => answers.push(wait(shard, answer)),
            // Busy: skip it, the others still give a good idea.
            Err(StoreError::Busy(_)) => {}
            Err(error) => return Err(error),
        }
    }
    let here = self.partition.borrow().len();
    let there = try_join_all(answers).await?;
    Ok(here + there.into_iter().sum::<usize>())
}

/// Whether the whole store is empty (a `len` like any other).
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.len().await? == 0)
}
