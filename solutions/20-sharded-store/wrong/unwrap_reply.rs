//! Wrong: a caller unwraps its answer. When a shard panics, the answers it owed are lost,
//! and every caller waiting for one panics too: one shard's bug takes down the threads
//! of its callers instead of giving them an error. Both panic tests see the caller die.
//! expect-fail: a_shard_that_panics_fails_its_callers_and_run_says_so, run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: wait

/// The answer to a request sent to `shard`.
async fn wait<T>(shard: usize, answer: oneshot::Receiver<T>) -> Result<T, StoreError> {
    let _ = shard;
    Ok(answer.await.expect("the shard always answers"))
}
