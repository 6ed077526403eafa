//! Wrong: the recycler's `Drop` frees the home block whatever lives in it ("every future
//! borrows the recycler, so none is alive when it goes"; the first version of this lab
//! gave this code). But `mem::forget` is safe: a handle forgotten after its future was
//! polled leaves that future pinned in the home block, never to be dropped, and the
//! recycler is not borrowed any more. Dropping it then frees memory that holds a pinned
//! future, which breaks `Pin`'s promise (a waiter list that points into the future now
//! points into freed memory). The test that forgets a polled future and then drops its
//! recycler finds the future's memory poisoned: while `busy`, the block must be leaked.
//! expect-fail: a_forgotten_future_keeps_its_block_for_good
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
        // SAFETY: "every future borrows the recycler, so none is alive now": unless its
        // handle was forgotten, which safe code may do.
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
