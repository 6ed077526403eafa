//! Wrong: `len` numbers the shards it asks as it goes, counting only the others, so the
//! shard named in a `Busy` or `Down` is its place in that list: right for every shard below
//! the caller, one too low for every shard above it. The count itself is right. The tests
//! make shard 0 count while shard 2's queue is full (`Busy(2)`, not `Busy(1)`), and while
//! shard 2 is down after a panic (`Down(2)`, not `Down(1)`).
//! expect-fail: a_shard_that_panics_fails_its_callers_and_run_says_so, len_fails_at_once_when_a_queue_is_full
//! replaces: len

/// How many keys the whole store holds: every shard's count, added up.
pub async fn len(&self) -> Result<usize, StoreError> {
    let others: Vec<&Queue> = (0..self.shards())
        .filter(|&shard| shard != self.shard)
        .map(|shard| &self.queues[shard])
        .collect();
    let mut answers = Vec::with_capacity(others.len());
    for (other, queue) in others.into_iter().enumerate() {
        let (reply, answer) = oneshot::channel();
        offer(queue, other, Request::Len { reply })?;
        answers.push(wait(other, answer));
    }
    let here = self.partition.borrow().len();
    let there = try_join_all(answers).await?;
    Ok(here + there.into_iter().sum::<usize>())
}

/// Whether the whole store is empty (a `len` like any other).
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.len().await? == 0)
}
