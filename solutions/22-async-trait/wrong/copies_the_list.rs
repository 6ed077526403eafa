//! Wrong: `Tiers::new` copies the slice it is lent into an `Rc<[..]>`, "so that `Tiers`
//! is cheap to clone". It is the `Arc` habit with a type the lab does not forbid: the
//! caller's slice already outlives the `Tiers` (its lifetime says so), and a `&Tiers` is
//! as cheap to share as anything. The copy costs an allocation and buys nothing;
//! `tiers_borrow_their_list` counts the allocations of `Tiers::new`.
//! expect-fail: tiers_borrow_their_list
//! replaces: tiers

use std::rc::Rc;

#[derive(Clone)]
pub struct Tiers<'a> {
    tiers: Rc<[&'a dyn DynStore]>,
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers {
            tiers: tiers.into(),
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
