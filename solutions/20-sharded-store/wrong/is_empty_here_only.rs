//! Wrong: `is_empty` looks at this shard's partition only ("cheap, no messages"), while `len`
//! counts every shard. On a shard that owns none of the keys, the store says it is empty
//! while it holds three. The test asks `is_empty()` on shard 0 while shards 1 to 3 hold a
//! key each and shard 0 none.
//! expect-fail: len_asks_every_shard_before_it_awaits_an_answer
//! replaces: len

/// How many keys the whole store holds: every shard's count, added up.
pub async fn len(&self) -> Result<usize, StoreError> {
    let mut answers = Vec::with_capacity(self.shards());
    for shard in (0..self.shards()).filter(|&shard| shard != self.shard) {
        let (reply, answer) = oneshot::channel();
        self.send(shard, Request::Len { reply })?;
        answers.push(wait(shard, answer));
    }
    let here = self.partition.borrow().len();
    let there = try_join_all(answers).await?;
    Ok(here + there.into_iter().sum::<usize>())
}

/// Whether this shard's partition is empty.
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.partition.borrow().is_empty())
}
