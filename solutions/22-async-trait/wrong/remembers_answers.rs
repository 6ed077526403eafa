//! Wrong: `Tiers` remembers every answer in a `RefCell<HashMap>`, so a repeated key is
//! not looked up again. A cache is a tier's job, not the list's: this one never forgets,
//! so a value changed in a store is never seen again, and a repeated key skips the
//! tiers. The contract test asks every key twice and sees a call that asked no tier; the
//! lookup counts see it too.
//! expect-fail: each_dyn_call_boxes_at_most_once, tiers_ask_every_tier_in_order_on_every_call
//! replaces: tiers

use std::cell::RefCell;
use std::collections::HashMap;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
    seen: RefCell<HashMap<u32, Option<u64>>>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers,
            seen: RefCell::default(),
        }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        if let Some(&answer) = self.seen.borrow().get(&key) {
            return answer;
        }
        let mut found = None;
        for tier in self.tiers {
            if let Some(value) = tier.get_dyn(key).await {
                found = Some(value);
                break;
            }
        }
        self.seen.borrow_mut().insert(key, found);
        found
    }
}
