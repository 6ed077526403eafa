//! Wrong: `Tiers` lets one call in at a time, "to protect the stores", with a std
//! `Mutex` whose guard lives across the `.await`. Sequential calls are fine; two
//! overlapping calls on one thread deadlock: the second `lock()` blocks the only thread,
//! and the first call, which would release the lock, can never run again. The stores
//! need no protection: they are borrowed, on one thread. Both tests with overlapping
//! calls stop under a watchdog (5 s and 2 s of wall-clock time).
//! expect-fail: dyn_calls_on_one_store_overlap, each_call_keeps_its_own_place_in_the_list
//! replaces: tiers

use std::sync::Mutex;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
    one_at_a_time: Mutex<()>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers,
            one_at_a_time: Mutex::new(()),
        }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        let _turn = self.one_at_a_time.lock().unwrap();
        for tier in self.tiers {
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        None
    }
}
