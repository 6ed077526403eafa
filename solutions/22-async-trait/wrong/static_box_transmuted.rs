//! Wrong: `Send` is gone and no `'static` is written, but the box is `'static` all the
//! same: `Box<dyn Future>` with no lifetime means `+ 'static`. The store's future borrows
//! the store, so the answer casts its lifetime away with `transmute`, "because `Tiers`
//! always awaits it at once". Every lookup runs; nothing stops a caller from keeping the
//! box after the store is gone. The test that ties the box to the borrow of the store
//! does not compile: the store would have to be borrowed for `'static`.
//! expect-error: E0597
//! replaces: dyn_store

type Lookup = Pin<Box<dyn Future<Output = Option<u64>>>>;

pub trait DynStore {
    fn get_dyn(&self, key: u32) -> Lookup;
}

impl<T: Store> DynStore for T {
    fn get_dyn(&self, key: u32) -> Lookup {
        let lookup: Pin<Box<dyn Future<Output = Option<u64>> + '_>> = Box::pin(self.get(key));
        // SAFETY (claimed): the caller awaits the lookup while the store is alive.
        unsafe { std::mem::transmute(lookup) }
    }
}
