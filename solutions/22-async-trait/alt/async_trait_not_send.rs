//! Also right: the `dyn` half written by async-trait. `?Send` drops the `Send` bound its
//! default form adds; the boxed future borrows `self` for the call (`'async_trait`), as
//! the hand-written one does for `'a`. The generic path stays unboxed.
//! expect-pass
//! replaces: dyn_store

#[async_trait::async_trait(?Send)]
pub trait DynStore {
    async fn get_dyn(&self, key: u32) -> Option<u64>;
}

#[async_trait::async_trait(?Send)]
impl<T: Store> DynStore for T {
    async fn get_dyn(&self, key: u32) -> Option<u64> {
        self.get(key).await
    }
}
