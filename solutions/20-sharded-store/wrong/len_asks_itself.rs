//! Wrong: `len` sends a count request to every shard, its own included, and adds up the
//! answers: no special case for the shard it runs on. Most of the time that gives the
//! right number, one hop late; but the caller's own queue is as full as anyone's, and
//! then its count is refused (`Busy`) by its own shard, or waits behind everything queued
//! there. The test blocks shard 0's thread while shard 1 fills shard 0's queue, then
//! counts on shard 0: a shard counts its own partition where it is.
//! expect-fail: len_counts_its_own_shard_without_a_message
//! replaces: len

/// How many keys the whole store holds: every shard's count, added up.
pub async fn len(&self) -> Result<usize, StoreError> {
    let mut answers = Vec::with_capacity(self.shards());
    for shard in 0..self.shards() {
        let (reply, answer) = oneshot::channel();
        self.send(shard, Request::Len { reply })?;
        answers.push(wait(shard, answer));
    }
    let counts = try_join_all(answers).await?;
    Ok(counts.into_iter().sum())
}

/// Whether the whole store is empty (a `len` like any other).
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.len().await? == 0)
}
