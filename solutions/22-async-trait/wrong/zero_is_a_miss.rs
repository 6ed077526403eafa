//! Wrong: `Tiers` turns each tier's answer into a number with `unwrap_or(0)`, as `total`
//! does, and goes on to the next tier while the number is 0. But 0 is a value a store
//! may hold: a tier that stores 0 is skipped, a slower tier behind it is asked, and its
//! value (or None) comes back instead of Some(0). Only `None` means "not here".
//! `any_stored_value_is_an_answer` puts 0 (and then `u64::MAX`) in the first tier.
//! expect-fail: any_stored_value_is_an_answer
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
        for tier in self.tiers {
            let value = tier.get_dyn(key).await.unwrap_or(0);
            if value != 0 {
                return Some(value);
            }
        }
        None
    }
}
