//! Wrong: asks every tier and keeps the first answer in tier order. The values are
//! right, but a cache hit still reaches the database: the tiers after a hit must not be
//! asked at all. The database's log, the lookup counts, a stored `0` and the contract
//! test's list of tiers asked all show it.
//! expect-fail: a_borrowed_store_works_through_dyn, any_stored_value_is_an_answer, each_dyn_call_boxes_at_most_once, tiers_ask_every_tier_in_order_on_every_call, tiers_are_a_store_and_can_be_a_tier
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
        let mut found = None;
        for tier in self.tiers {
            let value = tier.get_dyn(key).await;
            found = found.or(value);
        }
        found
    }
}
