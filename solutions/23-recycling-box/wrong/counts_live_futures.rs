//! Wrong (for this lab's contract): counts the futures alive, and uses the home block
//! only when none is. Safe, but once the home block's future has gone while a future in
//! a block of its own still runs, the next call allocates again though the home block is
//! free and fits. What matters is whether a future lives in the home block, not how many
//! are alive. (It adds a field to the given `Recycler`, which the runner would flag too.)
//! expect-fail: every_order_of_calls_finishes_and_drops, the_home_block_is_busy_exactly_while_its_future_lives
//! replaces: recycler

// ANCHOR: given_recycler
#[derive(Default)]
pub struct Recycler {
    home: Cell<Option<Block>>,
    busy: Cell<bool>,
    alive: Cell<usize>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            home: Cell::new(None),
            busy: Cell::new(false),
            alive: Cell::new(0),
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
        self.alive.set(self.alive.get() + 1);
        let block = if self.alive.get() > 1 {
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
        self.alive.set(self.alive.get() - 1);
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
