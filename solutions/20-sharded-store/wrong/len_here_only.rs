//! Wrong: `len` counts only the partition this shard holds. It is quick and needs no message,
//! and it is wrong whenever the data is spread over more than one shard, and it never
//! notices a shard that is down or busy.
//! expect-fail: a_shard_that_panics_fails_its_callers_and_run_says_so, len_asks_every_shard_before_it_awaits_an_answer, len_counts_every_shard_while_writes_go_on, len_fails_at_once_when_a_queue_is_full
//! replaces: len

/// How many keys the store holds.
pub async fn len(&self) -> Result<usize, StoreError> {
    Ok(self.partition.borrow().len())
}

/// Whether the whole store is empty (a `len` like any other).
pub async fn is_empty(&self) -> Result<bool, StoreError> {
    Ok(self.len().await? == 0)
}
