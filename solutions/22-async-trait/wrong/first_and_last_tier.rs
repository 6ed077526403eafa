//! Wrong: `Tiers` asks the first tier (the cache), then the last (the database), and
//! skips whatever is in between. With two tiers that is every tier; with more, a key that
//! only a middle tier knows is never found. The contract test runs over three, five and
//! nine tiers, each knowing a key of its own, and sees tier 1 skipped.
//! expect-fail: tiers_ask_every_tier_in_order_on_every_call
//! replaces: tiers

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers { tiers }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        let (cache, rest) = self.tiers.split_first()?;
        if let Some(value) = cache.get_dyn(key).await {
            return Some(value);
        }
        let database = rest.last()?;
        database.get_dyn(key).await
    }
}
