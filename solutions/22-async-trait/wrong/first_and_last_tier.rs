//! Wrong: `Tiers` asks the first tier (the cache), then the last (the database), and
//! skips whatever is in between. With two tiers that is every tier; with more, a key that
//! only a middle tier knows is never found. `every_tier_is_asked_in_order` has four
//! tiers, each knowing one key.
//! expect-fail: every_tier_is_asked_in_order
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
