//! Wrong: `Tiers` keeps its place in the list in a `Cell` on itself ("which tier next")
//! instead of in the call's future, and puts it back to 0 when a call ends. Calls one
//! after the other never notice. But a call dropped half-way (a timeout) never ends:
//! it leaves the place where it was, and the next call starts there, past the tiers in
//! front. Two calls at once share the one place and move each other on.
//! `each_call_keeps_its_own_place_in_the_list` drops a call while the second tier is
//! looking, then asks a key the first tier knows, and runs two calls at once.
//! expect-fail: each_call_keeps_its_own_place_in_the_list
//! replaces: tiers

use std::cell::Cell;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
    place: Cell<usize>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers,
            place: Cell::new(0),
        }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        while let Some(tier) = self.tiers.get(self.place.get()) {
            if let Some(value) = tier.get_dyn(key).await {
                self.place.set(0);
                return Some(value);
            }
            self.place.set(self.place.get() + 1);
        }
        self.place.set(0);
        None
    }
}
