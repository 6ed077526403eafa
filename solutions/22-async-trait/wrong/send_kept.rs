//! Wrong: `'static` is gone (the box borrows the store), but every future is still
//! `Send`, "in case someone spawns it". The tests' stores keep an `Rc` across an
//! `.await` and count in a `Cell`, so neither their futures nor the stores themselves
//! qualify, and the tests do not compile.
//! expect-error: E0277, future cannot be sent between threads safely
//! replaces: solution

pub trait Store {
    fn get(&self, key: u32) -> impl Future<Output = Option<u64>> + Send;
}

pub trait DynStore: Sync {
    fn get_dyn<'a>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + Send + 'a>>;
}

impl<T: Store + Sync> DynStore for T {
    fn get_dyn<'a>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + Send + 'a>> {
        Box::pin(self.get(key))
    }
}

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

pub async fn total<S: Store>(store: &S, keys: &[u32]) -> u64 {
    let mut sum = 0;
    for &key in keys {
        sum += store.get(key).await.unwrap_or(0);
    }
    sum
}
