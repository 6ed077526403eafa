//! Wrong: "a broken tier must not take the service down": `Tiers` polls each tier's
//! lookup inside `catch_unwind` and takes a panic for a miss, going on to the next tier.
//! But a panic is a bug, not an answer: the tier may be left half-way through a change,
//! the caller never hears of it, and a broken cache quietly sends every lookup to the
//! database. `Tiers` lets a tier's panic reach its caller, as the starter does.
//! `a_panicking_tier_panics_the_call` puts a tier that panics in front of one that knows
//! the key.
//! expect-fail: a_panicking_tier_panics_the_call
//! replaces: tiers

use std::future::poll_fn;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::Poll;

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
            let answer =
                poll_fn(
                    |cx| match catch_unwind(AssertUnwindSafe(|| lookup.as_mut().poll(cx))) {
                        Ok(poll) => poll,
                        Err(_) => Poll::Ready(None),
                    },
                )
                .await;
            if answer.is_some() {
                return answer;
            }
        }
        None
    }
}
