//! Wrong: `shard_for` routes through 16 fixed slots, the way a store that reshards does:
//! the key's hash picks a slot (`hash % 16`) and the slot a shard (`slot % shards`). With
//! 2, 4 or 8 shards that is fair; with 12, four shards own two slots each and the rest one,
//! and past 16 shards some own nothing at all. The routing test spreads keys over 12, 17
//! and 32 shards: with 12, shards 0 to 3 get twice the keys of the others.
//! expect-fail: shard_for_spreads_keys_over_every_shard
//! replaces: route

/// The shard that owns `key`, out of `shards`: the same answer on every thread.
pub fn shard_for(key: &str, shards: usize) -> usize {
    const SLOTS: u64 = 16;
    let mut hasher = DefaultHasher::new();
    key.hash(&mut hasher);
    let slot = hasher.finish() % SLOTS;
    (slot % shards as u64) as usize
}
