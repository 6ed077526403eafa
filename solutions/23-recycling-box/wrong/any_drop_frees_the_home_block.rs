//! Wrong: any future that goes marks the home block free, including one that had a block
//! of its own. Two overlapping calls, then a third while the first still runs: the
//! second's drop cleared `busy`, so the third is written over the first, which is lost
//! without a drop and then answers with the third's state. Only the `busy` flag of the
//! home block's own future may clear it.
//! expect-fail: every_order_of_calls_finishes_and_drops, the_home_block_is_busy_exactly_while_its_future_lives
//! replaces: recycler

#[derive(Default)]
pub struct Recycler {
    home: Cell<Option<Block>>,
    busy: Cell<bool>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            home: Cell::new(None),
            busy: Cell::new(false),
        }
    }

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

impl Drop for Recycler {
    fn drop(&mut self) {
        if let Some(home) = self.home.get() {
            // SAFETY: no future is alive; the home block is freed here only.
            unsafe { home.free() }
        }
    }
}
