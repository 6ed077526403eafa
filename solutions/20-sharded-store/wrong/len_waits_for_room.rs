//! Wrong: `len` waits for room in a full queue (`send().await`) instead of failing at once
//! with `Busy`. Every other call sheds load, but a count queues up behind a shard that is
//! stuck, and holds up the app that asked for as long as the shard stays stuck. The test
//! fills a held shard's queue and polls `len()` once: it has not returned.
//! expect-fail: len_fails_at_once_when_a_queue_is_full
//! replaces: len

/// How many keys the whole store holds: every shard's count, added up.
pub async fn len(&self) -> Result<usize, StoreError> {
    let mut answers = Vec::with_capacity(self.shards());
    for shard in (0..self.shards()).filter(|&shard| shard != self.shard) {
        let (reply, answer) = oneshot::channel();
        // A count is worth waiting for: wait for room rather than give up.
        self.queues[shard]
            .send(Request::Len { reply })
            .await
            .map_err(|_| StoreError::Down(shard))?;
        answers.push(wait(shard, answer));
    }
    let here = self.partition.borrow().len();
    let there = try_join_all(answers).await?;
    Ok(here + there.into_iter().sum::<usize>())
}

/// Whether the whole store is empty (a `len` like any other).
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.len().await? == 0)
}
