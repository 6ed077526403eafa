//! Wrong: any future that goes marks the home block free, including one that had a block
//! of its own. Two overlapping calls, then a third while the first still runs: the
//! second's drop cleared `busy`, so the third is written over the first, which is lost
//! without a drop and then answers with the third's state. Only the `busy` flag of the
//! home block's own future may clear it.
//! expect-fail: every_order_of_calls_finishes_and_drops, the_home_block_is_busy_exactly_while_its_future_lives
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
        let block = if self.busy.get() {
            Block::new(layout)
        } else {
            let block = match self.home.get() {
                Some(home) if home.fits(layout) => home,
                too_small => {
                    if let Some(home) = too_small {
                        // SAFETY: not busy, so nothing lives in the old home block.
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
        // "A future is gone, so the home block is free."
        self.busy.set(false);
        if self.home.get().map(|home| home.ptr) != Some(ptr) {
            let own = Block {
                ptr,
                layout: block_layout(layout),
            };
            // SAFETY: a block of its own, allocated for this layout; its future is gone.
            unsafe { own.free() }
        }
    }
}
