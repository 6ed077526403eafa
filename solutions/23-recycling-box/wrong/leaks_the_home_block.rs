//! Wrong: the home block is freed when a bigger one replaces it, and a block of its own
//! when its future goes; but nobody frees the home block when the recycler itself goes
//! away: the recycler's given `Drop` is gone. (A `Block` is a plain pointer and layout,
//! so nothing frees it unless told to.)
//! expect-fail: a_future_that_panics_still_gives_its_block_back, every_order_of_calls_finishes_and_drops, nothing_leaks
//! replaces: recycler

// ANCHOR: given_recycler
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
