//! Wrong (for this lab's contract): the policy of the original `RecyclableFutureAllocator`.
//! A block is reused only by a future of exactly its size; any other future gets a
//! one-off block, and the recycler keeps its old one. Futures of different types (and
//! sizes) then allocate on every change, where "a bigger block replaces the smaller"
//! allocates once.
//! expect-fail: a_bigger_future_gets_a_bigger_block_which_is_reused, a_future_dropped_before_it_finishes_is_dropped, overlapping_calls_each_get_their_own_block
//! replaces: recycler

#[derive(Default)]
pub struct Recycler {
    idle: Cell<Option<Block>>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            idle: Cell::new(None),
        }
    }

    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = match self.idle.take() {
            Some(block) if block.layout.size() == layout.size().max(1) && block.fits(layout) => {
                block
            }
            Some(other) => {
                self.idle.set(Some(other));
                Block::new(layout)
            }
            None => Block::new(layout),
        };
        let place = block.ptr.cast::<F>();
        unsafe { place.write(future) };
        RecycledFuture {
            future: place,
            block: Some(block),
            home: self,
        }
    }

    fn give_back(&self, block: Block) {
        if let Some(idle) = self.idle.take() {
            self.idle.set(Some(idle));
            return;
        }
        self.idle.set(Some(block));
    }
}
