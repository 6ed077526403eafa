//! Wrong: `Tiers` lets one call in at a time, with a `Cell<bool>` for a lock: a call that
//! finds the flag set wakes itself and tries again. No `Mutex`, so the runner has nothing
//! to name, but the calls still take turns, and the waiting one spins: woken at once,
//! again and again, it keeps tokio's paused clock from moving, so the first call's 10 ms
//! never end. `dyn_calls_on_one_store_overlap` counts the polls and stops it after 20.
//! The stores are borrowed and on one thread: two calls need no turns.
//! expect-fail: dyn_calls_on_one_store_overlap
//! replaces: tiers

use std::cell::Cell;
use std::task::Poll;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
    busy: Cell<bool>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers,
            busy: Cell::new(false),
        }
    }
}

/// Clears the flag however the call ends (answered or dropped).
struct Turn<'t>(&'t Cell<bool>);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        std::future::poll_fn(|cx| {
            if self.busy.replace(true) {
                cx.waker().wake_by_ref();
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
        let _turn = Turn(&self.busy);
        for tier in self.tiers {
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        None
    }
}
