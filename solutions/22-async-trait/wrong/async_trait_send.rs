//! Wrong: the `dyn` half written with async-trait, in its default form. That form adds
//! `+ Send` to every boxed future, and the blanket impl's future awaits `T::get`, which
//! nothing promises to be `Send`: the crate itself does not compile. (`?Send` is the
//! fix: alt/async_trait_not_send.rs.)
//! expect-error: future cannot be sent between threads safely
//! replaces: dyn_store

#[async_trait::async_trait]
pub trait DynStore {
    async fn get_dyn(&self, key: u32) -> Option<u64>;
}

#[async_trait::async_trait]
impl<T: Store + Sync> DynStore for T {
    async fn get_dyn(&self, key: u32) -> Option<u64> {
        self.get(key).await
    }
}
