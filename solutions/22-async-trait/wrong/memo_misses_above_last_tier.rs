//! Wrong: negative caching. `Tiers` notes which tier missed which key (sixteen slots in a
//! `Cell`, no allocation) and skips that tier for that key afterwards; the last tier,
//! "the source of truth", is always asked. But a miss is true only when it is answered:
//! a cache that learns the key later is skipped all the same, and the answer comes from
//! the slower tier behind it. The contract test asks every key twice and adds keys to
//! the first and a middle tier after a miss: the second call begins past the tiers it
//! remembers missing.
//! expect-fail: tiers_ask_every_tier_in_order_on_every_call
//! replaces: tiers

use std::cell::Cell;

const SLOTS: usize = 16;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
    missed: Cell<[Option<(usize, u32)>; SLOTS]>,
    next_slot: Cell<usize>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers,
            missed: Cell::new([None; SLOTS]),
            next_slot: Cell::new(0),
        }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        let last = self.tiers.len().saturating_sub(1);
        for (at, tier) in self.tiers.iter().enumerate() {
            if at < last && self.missed.get().contains(&Some((at, key))) {
                continue;
            }
            match tier.get_dyn(key).await {
                Some(value) => return Some(value),
                None if at < last => {
                    let mut missed = self.missed.get();
                    let slot = self.next_slot.get();
                    missed[slot % SLOTS] = Some((at, key));
                    self.missed.set(missed);
                    self.next_slot.set(slot + 1);
                }
                None => {}
            }
        }
        None
    }
}
