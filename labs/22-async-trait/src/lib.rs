//! Lab 22: one async trait, called two ways: through generics (static dispatch) and
//! through `dyn` (stores chosen at run time). The starter was written for a
//! work-stealing runtime: every future is `Send`, and the boxed one is `'static` too.
//! The tests hand it stores that keep `Rc`/`RefCell` state and borrow from the test.
//! Make them pass without `Send`, without `'static`, and without boxing the static path.
//! Task, commands and "done when": README.md; hints: `cargo labs hint 22`.

use std::pin::Pin;

// ANCHOR: store (the book quotes the code from here to the ANCHOR_END line)
/// Something that answers lookups: a cache, a database, a remote service.
pub trait Store {
    /// The value stored under `key`, if any. The future is `Send`, so that any caller
    /// may spawn it on a multi-threaded runtime.
    fn get(&self, key: u32) -> impl Future<Output = Option<u64>> + Send;
}
// ANCHOR_END: store

// ANCHOR: dyn_store (the book quotes the code from here to the ANCHOR_END line)
/// `Store` as a trait object, for stores chosen at run time. (`Store` itself cannot be
/// one: each implementor's `get` returns a future of a different type.) `Send + Sync`,
/// so that a `&dyn DynStore` may go to any thread too.
pub trait DynStore: Send + Sync {
    fn get_dyn(&self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + Send + 'static>>;
}

/// Every store is a `DynStore`: its future goes into a box. The box may not borrow
/// `self` (it is `'static`), so the future runs on a clone of the store.
impl<T: Store + Clone + Send + Sync + 'static> DynStore for T {
    fn get_dyn(&self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + Send + 'static>> {
        let this = self.clone();
        Box::pin(async move { this.get(key).await })
    }
}
// ANCHOR_END: dyn_store

// ANCHOR: tiers (the book quotes the code from here to the ANCHOR_END line)
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
    fn get(&self, key: u32) -> impl Future<Output = Option<u64>> + Send {
        async move {
            for tier in self.tiers {
                if let Some(value) = tier.get_dyn(key).await {
                    return Some(value);
                }
            }
            None
        }
    }
}
// ANCHOR_END: tiers

// ANCHOR: total (the book quotes the code from here to the ANCHOR_END line)
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
