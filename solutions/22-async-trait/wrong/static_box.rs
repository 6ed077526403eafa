//! Wrong: `Send` is gone, but the boxed future is still `'static`: `Box<dyn Future>`
//! with no lifetime means `Box<dyn Future + 'static>`. A `'static` future cannot borrow
//! the store, so it runs on a clone, which needs `T: Clone + 'static`. The tests' stores
//! are not `Clone`, and the database borrows from the test: the tests do not compile.
//! expect-error: E0277
//! replaces: dyn_store

pub trait DynStore {
    fn get_dyn(&self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>>>>;
}

impl<T: Store + Clone + 'static> DynStore for T {
    fn get_dyn(&self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>>>> {
        let this = self.clone();
        Box::pin(async move { this.get(key).await })
    }
}
