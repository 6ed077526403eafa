//! Wrong: `len` counts only the slice this shard holds. It is quick and needs no message,
//! and it is wrong whenever the data is spread over more than one shard.
//! expect-fail: a_shard_that_panics_fails_its_callers_and_run_says_so, len_counts_every_shard_while_writes_go_on
//! replaces: len

/// How many keys the store holds.
pub async fn len(&self) -> Result<usize, StoreError> {
    Ok(self.slice.borrow().len())
}
