//! Lab 22, solved: one async trait, called through generics and through `dyn`, with no
//! `Send` and no `'static` anywhere. The generic path boxes nothing; each call through
//! `dyn` boxes its future once, and the box borrows the store.

use std::pin::Pin;

// ANCHOR: solution
// ANCHOR: store
/// Something that answers lookups: a cache, a database, a remote service.
#[expect(
    async_fn_in_trait,
    reason = "the futures run on the caller's thread; a caller that needs Send would get a \
              Send twin of this trait (trait-variant), not a Send bound on everyone"
)]
pub trait Store {
    /// The value stored under `key`, if any.
    async fn get(&self, key: u32) -> Option<u64>;
}
// ANCHOR_END: store

// ANCHOR: dyn_store
/// `Store` as a trait object, for stores chosen at run time. (`Store` itself cannot be
/// one: each implementor's `get` returns a future of a different type.)
pub trait DynStore {
    /// The same lookup, its future boxed. The box borrows `self` for `'a`.
    fn get_dyn<'a>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + 'a>>;
}

/// Every store is a `DynStore`: one box per call, holding the store's own future.
impl<T: Store> DynStore for T {
    fn get_dyn<'a>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + 'a>> {
        Box::pin(self.get(key))
    }
}
// ANCHOR_END: dyn_store

// ANCHOR: tiers
/// Stores tried in order until one knows the key: a cache in front of a database.
/// Which stores, and how many, is decided at run time.
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
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        None
    }
}
// ANCHOR_END: tiers

// ANCHOR: total
/// The sum of the values found for `keys`, looked up one after the other. Generic, so
/// any store will do; with a concrete store, nothing here allocates.
pub async fn total<S: Store>(store: &S, keys: &[u32]) -> u64 {
    let mut sum = 0;
    for &key in keys {
        sum += store.get(key).await.unwrap_or(0);
    }
    sum
}
// ANCHOR_END: total
// ANCHOR_END: solution
