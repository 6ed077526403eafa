//! Wrong: the box borrows for `'b`, a lifetime of the caller's choosing, not tied to
//! `&'a self`: `transmute` turns the store's borrowing future into it. Nothing in the
//! signature says `'static`, and every test passes (each box is awaited while its store
//! lives), but a caller may keep the box after the store is gone: a use after free that
//! the compiler was told not to check. The lab needs no `unsafe`, and the lesson check
//! names the line.
//! expect-lesson: unsafe, mem::transmute
//! replaces: dyn_store

pub trait DynStore {
    fn get_dyn<'a, 'b>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + 'b>>;
}

impl<T: Store> DynStore for T {
    fn get_dyn<'a, 'b>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + 'b>> {
        let lookup: Pin<Box<dyn Future<Output = Option<u64>> + 'a>> = Box::pin(self.get(key));
        // SAFETY (claimed): `Tiers` awaits the lookup while the store is alive.
        unsafe { std::mem::transmute(lookup) }
    }
}
