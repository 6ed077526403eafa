//! Wrong: forgets to check whether a future still lives in the home block. Each call
//! writes its future there, even over a future that is still running: two overlapping
//! calls then share one future's state, and the first call's future is lost without a
//! drop.
//! expect-fail: a_future_may_use_its_recycler_while_polled_or_dropped, a_future_that_panics_still_gives_its_block_back, every_order_of_calls_finishes_and_drops, overlapping_calls_each_get_their_own_block, the_home_block_is_busy_exactly_while_its_future_lives
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

impl Drop for Recycler {
    fn drop(&mut self) {
        if let Some(home) = self.home.get() {
            unsafe { home.free() }
        }
    }
}
