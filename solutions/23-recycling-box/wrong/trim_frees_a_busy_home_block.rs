//! Wrong: a public `trim` that frees the home block, "to save memory between bursts".
//! It never checks `busy`, so safe code can free the memory of a future that still lives
//! there: `let f = r.recycle(fut); r.trim(); f.await` is a use after free, with no
//! `unsafe` in the caller. No test can call a method whose name it does not know, so
//! every test passes and Miri, which runs the tests, finds nothing; the runner refuses
//! public API the starter does not have in this lab (`fixed-api`).
//! expect-lesson: new API
//! replaces: recycler
// ANCHOR: given_recycler
/// Keeps one block of memory, the *home block*, to box one future after another in it.
#[derive(Default)]
pub struct Recycler {
    /// The home block, once there is one. The recycler owns it and frees it.
    home: Cell<Option<Block>>,
    /// Whether a future lives in the home block right now: from the `recycle` that moves
    /// it in until its drop has returned (or unwound).
    busy: Cell<bool>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            home: Cell::new(None),
            busy: Cell::new(false),
        }
    }
}

impl Drop for Recycler {
    fn drop(&mut self) {
        let Some(home) = self.home.get() else {
            return;
        };
        if self.busy.get() {
            // A future still lives in the home block, though every future borrows the
            // recycler: its handle was forgotten (`mem::forget` is safe code), so its drop
            // will never run. It may be pinned, and pinned memory must stay valid until
            // the value in it is dropped: the block is leaked, never freed.
            return;
        }
        // SAFETY: no future lives in the home block, and it is freed here only.
        unsafe { home.free() }
    }
}
// ANCHOR_END: given_recycler

impl Recycler {
    /// Boxes `future`: in the home block if it is free, after replacing it with a bigger
    /// one if the future does not fit. If a future already lives there (the calls
    /// overlap), the new one gets a block of its own, freed when it is dropped.
    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = if self.busy.get() {
            Block::new(layout)
        } else {
            let block = match self.home.get() {
                Some(home) if home.fits(layout) => home,
                too_small => {
                    if let Some(home) = too_small {
                        // SAFETY: not busy, so nothing lives in the old home block, and
                        // it is replaced right below: it is freed once.
                        unsafe { home.free() };
                    }
                    let bigger = Block::new(layout);
                    self.home.set(Some(bigger));
                    bigger
                }
            };
            self.busy.set(true);
            block
        };
        // Derived from the allocation's own pointer, never from an integer or a reference:
        // it may reach every byte of the block.
        let place = block.ptr.cast::<F>();
        // SAFETY: the block is big enough and aligned for `F` (it fits, or was made for
        // `F`), and nothing lives in it: it is new, or the home block was not busy.
        unsafe { place.write(future) };
        RecycledFuture {
            // An unsizing coercion: the compiler supplies `F`'s vtable.
            future: place,
            home: self,
        }
    }

    /// Gives the home block back to the allocator, to save memory between bursts.
    pub fn trim(&self) {
        if let Some(home) = self.home.take() {
            // SAFETY (claimed): the next call allocates a new home block. Wrong: a future
            // may live in this one right now, and safe code can call trim at any time.
            unsafe { home.free() };
        }
    }

    /// The future that lived at `ptr` (with `layout`) has been dropped: the home block is
    /// free again, or a block of its own is freed.
    #[inline]
    fn release(&self, ptr: NonNull<u8>, layout: Layout) {
        match self.home.get() {
            Some(home) if home.ptr == ptr => self.busy.set(false),
            _ => {
                let own = Block {
                    ptr,
                    layout: block_layout(layout),
                };
                // SAFETY: this future had a block of its own, allocated in `recycle` with
                // `block_layout` of the future's layout, which is `layout`; its future is
                // gone, and only this call frees it.
                unsafe { own.free() }
            }
        }
    }
}
