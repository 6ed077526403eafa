//! Wrong: `Tiers` wraps each boxed lookup in `ManuallyDrop` once it has answered, "a
//! finished future owns nothing worth a destructor call". But the box itself is an
//! allocation, and nothing frees it: every call through `dyn` leaks one.
//! `each_dyn_call_boxes_at_most_once` counts the allocations still alive after the calls
//! have finished. (`ManuallyDrop::new` is in the runner's default set too, as a
//! `mem::forget`; the test sees the leak first, and catches it however it is written.)
//! expect-fail: each_dyn_call_boxes_at_most_once
//! replaces: tiers

use std::mem::ManuallyDrop;

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
            let mut lookup = tier.get_dyn(key);
            let answer = lookup.as_mut().await;
            let _ = ManuallyDrop::new(lookup);
            if let Some(value) = answer {
                return Some(value);
            }
        }
        None
    }
}
