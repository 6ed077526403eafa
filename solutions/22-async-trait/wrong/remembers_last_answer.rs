//! Wrong: `Tiers` keeps the last key and its answer in a `Cell`, and answers the same key
//! asked again from there, "to save a round through the tiers". The stores can change
//! between two calls, and `Tiers` never hears of it: a changed value keeps its old
//! answer. The contract test changes a value and asks again at once: the call asks no
//! tier and answers the old value.
//! expect-fail: tiers_ask_every_tier_in_order_on_every_call
//! replaces: tiers

use std::cell::Cell;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
    last: Cell<Option<(u32, Option<u64>)>>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers,
            last: Cell::new(None),
        }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        if let Some((last_key, answer)) = self.last.get()
            && last_key == key
        {
            return answer;
        }
        let mut answer = None;
        for tier in self.tiers {
            if let Some(value) = tier.get_dyn(key).await {
                answer = Some(value);
                break;
            }
        }
        self.last.set(Some((key, answer)));
        answer
    }
}
