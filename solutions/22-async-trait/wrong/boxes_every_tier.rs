//! Wrong: asks every tier for its future first, then awaits them in order until one
//! knows the key. The answers are right, and the tiers after a hit are never polled, so
//! they never look anything up. But each of those futures was boxed for nothing.
//! expect-fail: each_dyn_call_boxes_at_most_once
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
        let lookups: Vec<_> = self.tiers.iter().map(|tier| tier.get_dyn(key)).collect();
        for lookup in lookups {
            if let Some(value) = lookup.await {
                return Some(value);
            }
        }
        None
    }
}
