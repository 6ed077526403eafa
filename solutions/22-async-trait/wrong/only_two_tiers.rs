//! Wrong: `Tiers` asks at most the first two tiers, "a cache in front of a database",
//! and a third tier is never asked. Every test with two tiers passes; but `Tiers` is a
//! list of any length, chosen at run time. The contract test runs over three, five and
//! nine tiers, each knowing a key of its own, and sees the call stop after two.
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
        for tier in self.tiers.iter().take(2) {
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        None
    }
}
