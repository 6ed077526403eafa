//! Wrong: `shard_for` routes by the key's last byte, modulo the number of shards ("keys end
//! in an id, that is random enough"). It agrees with itself on every thread, and keys like
//! "key-1234" spread well; but real keys share endings ("img-17.png", "img-18.png"), and
//! every one of those lands on the same shard. The routing test spreads 10,000 keys that
//! end in ".png": all of them fall on one shard.
//! expect-fail: shard_for_spreads_keys_over_every_shard
//! replaces: route

/// The shard that owns `key`, out of `shards`: the same answer on every thread.
pub fn shard_for(key: &str, shards: usize) -> usize {
    key.bytes()
        .last()
        .map_or(0, |byte| usize::from(byte) % shards)
}
