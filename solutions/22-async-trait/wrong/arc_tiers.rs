//! Wrong: `Tiers` copies its list into an `Arc`, out of the habit of making things
//! cheap to clone into tasks. Nothing here is ever sent to a task: the list is borrowed
//! already, and a borrow is cheaper than any count. `tiers_borrow_their_list` sees the
//! copy (`Tiers::new` allocates); without that test, the lesson check would name every
//! line with `Arc`.
//! expect-fail: tiers_borrow_their_list
//! replaces: tiers

use std::sync::Arc;

#[derive(Clone)]
pub struct Tiers<'a> {
    tiers: Arc<[&'a dyn DynStore]>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers: Arc::from(tiers),
        }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        for tier in self.tiers.iter() {
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        None
    }
}
