//! Wrong: asks whether the future fits before asking whether the home block is busy. A
//! bigger future that comes while a smaller one lives in the home block replaces the
//! block, and frees it under the live future; that future then runs, and is dropped, in
//! freed memory, and its drop frees the old block a second time. With glibc this may pass
//! or crash. The test that runs every order of calls sees the home block freed at the
//! bigger call (and the tests' allocator, which holds freed blocks back poisoned, would
//! report the second free).
//! expect-fail: every_order_of_calls_finishes_and_drops
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
    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = match self.home.get() {
            Some(home) if home.fits(layout) && !self.busy.get() => {
                self.busy.set(true);
                home
            }
            Some(home) if home.fits(layout) => Block::new(layout),
            too_small => {
                // "Too small: a bigger home block."
                if let Some(home) = too_small {
                    // SAFETY: "nothing lives in it": unless it is busy.
                    unsafe { home.free() };
                }
                let bigger = Block::new(layout);
                self.home.set(Some(bigger));
                self.busy.set(true);
                bigger
            }
        };
        let place = block.ptr.cast::<F>();
        // SAFETY: the block fits `F`, and nothing lives in it.
        unsafe { place.write(future) };
        RecycledFuture {
            future: place,
            home: self,
        }
    }

    #[inline]
    fn release(&self, ptr: NonNull<u8>, layout: Layout) {
        match self.home.get() {
            Some(home) if home.ptr == ptr => self.busy.set(false),
            _ => {
                let own = Block {
                    ptr,
                    layout: block_layout(layout),
                };
                // SAFETY: a block of its own, allocated for this layout; its future is gone.
                unsafe { own.free() }
            }
        }
    }
}
