//! Wrong: `Tiers::new` copies the list it is lent into an inline array of four slots,
//! "a cache, a second cache, a replica and a database". No allocation, so
//! `tiers_borrow_their_list` is satisfied; but a fifth tier and any after it are dropped
//! without a word, and a key only they know is never found. The contract test runs over
//! five and nine tiers, each knowing a key of its own. (Borrowing the slice costs less
//! than copying it, and has no length limit.)
//! expect-fail: tiers_ask_every_tier_in_order_on_every_call
//! replaces: tiers

const MOST: usize = 4;

pub struct Tiers<'a> {
    tiers: [Option<&'a dyn DynStore>; MOST],
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        let mut copy = [None; MOST];
        for (slot, &tier) in copy.iter_mut().zip(tiers) {
            *slot = Some(tier);
        }
        Tiers { tiers: copy }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        for tier in self.tiers.iter().flatten() {
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        None
    }
}
