//! Wrong: `shard_for` routes by the key's length, modulo the number of shards ("cheap, and
//! every thread agrees"). It is stable and needs no hasher; but keys of a service are
//! mostly alike in length ("key-1000" to "key-9999" are all eight bytes), so nearly all of
//! them land on one shard. The routing test spreads 10,000 keys and finds them piled up;
//! the several-panics test, whose keys are alike too, finds the wrong shards panicking.
//! expect-fail: run_reports_the_lowest_numbered_shard_that_panicked, shard_for_spreads_keys_over_every_shard
//! replaces: route

/// The shard that owns `key`, out of `shards`: the same answer on every thread.
pub fn shard_for(key: &str, shards: usize) -> usize {
    key.len() % shards
}
