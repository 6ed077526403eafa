//! Wrong: routes with a `RandomState` made once per thread. Each thread hashes with keys of
//! its own, so the same key goes to different shards from different threads: two owners,
//! two histories, and a read that misses a write.
//! expect-fail: a_call_for_a_key_this_shard_owns_is_served_on_the_spot, each_key_sees_one_order_under_concurrent_clients, every_key_is_served_by_its_owner_and_seen_by_every_shard, shard_for_is_the_same_on_every_thread
//! replaces: route

/// The shard that owns `key`, out of `shards`.
pub fn shard_for(key: &str, shards: usize) -> usize {
    use std::hash::{BuildHasher, RandomState};
    thread_local! {
        // One hasher per thread, so that no thread waits for another.
        static HASHER: RandomState = RandomState::new();
    }
    HASHER.with(|hasher| (hasher.hash_one(key) % shards as u64) as usize)
}
