//! Wrong: `Tiers` remembers the last key that no tier knew, in a `Cell`, and answers
//! None for it at once when it is asked again: a negative cache, "so a missing key does
//! not cost a round through every tier". But a miss is only true when it is answered: a
//! key added to a store afterwards stays missing for as long as nobody asks another key
//! that misses. The contract test asks a missing key twice in a row (the second call
//! asks no tier), and adds keys after a miss.
//! expect-fail: tiers_ask_every_tier_in_order_on_every_call
//! replaces: tiers

use std::cell::Cell;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
    last_miss: Cell<Option<u32>>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers,
            last_miss: Cell::new(None),
        }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        if self.last_miss.get() == Some(key) {
            return None;
        }
        for tier in self.tiers {
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        self.last_miss.set(Some(key));
        None
    }
}
