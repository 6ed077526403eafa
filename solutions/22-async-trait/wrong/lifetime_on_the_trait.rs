//! Wrong: the box's lifetime is a parameter of the trait, `DynStore<'a>` with
//! `get_dyn(&'a self)`, instead of the method's. Every store on the stack works, but a
//! call now borrows the store for `'a`, the trait's lifetime, which lasts as long as the
//! store exists: a store owned in a `Box<dyn DynStore>` can never be dropped after it was
//! called. `owned_stores_are_called_and_dropped_in_one_scope` keeps its stores in a
//! `Vec` of boxes, and does not compile: the stores would have to outlive themselves
//! (E0597). On the method, the lifetime is chosen anew for each call.
//! expect-error: E0597
//! replaces: solution

#[expect(
    async_fn_in_trait,
    reason = "the futures run on the caller's thread; nothing here spawns"
)]
pub trait Store {
    async fn get(&self, key: u32) -> Option<u64>;
}

pub trait DynStore<'a> {
    fn get_dyn(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + 'a>>;
}

impl<'a, T: Store + 'a> DynStore<'a> for T {
    fn get_dyn(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + 'a>> {
        Box::pin(self.get(key))
    }
}

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore<'a>],
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore<'a>]) -> Self {
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

pub async fn total<S: Store>(store: &S, keys: &[u32]) -> u64 {
    let mut sum = 0;
    for &key in keys {
        sum += store.get(key).await.unwrap_or(0);
    }
    sum
}
