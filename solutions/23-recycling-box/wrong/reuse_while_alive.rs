//! Wrong: forgets to check whether a future still lives in the home block. Each call
//! writes its future there, even over a future that is still running: two overlapping
//! calls then share one future's state, and the first call's future is lost without a
//! drop.
//! expect-fail: a_future_may_use_its_recycler_while_polled_or_dropped, a_future_that_panics_still_gives_its_block_back, every_order_of_calls_finishes_and_drops, overlapping_calls_each_get_their_own_block, the_home_block_is_busy_exactly_while_its_future_lives
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

// ANCHOR: recycle
impl Recycler {
    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = {
            let block = match self.home.get() {
                Some(home) if home.fits(layout) => home,
                too_small => {
                    if let Some(home) = too_small {
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
                unsafe { own.free() }
            }
        }
    }
}
// ANCHOR_END: recycle
