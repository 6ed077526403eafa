//! Wrong (for this lab's contract): refuses overlapping calls with a panic. That is a
//! defensible design for a `&mut self` method, where the borrow checker already rules
//! overlap out; for a `&self` method, two calls in a `join` are ordinary code, and this
//! lab's recycler serves them with a second block instead.
//! expect-fail: nothing_leaks, overlapping_calls_each_get_their_own_block
//! replaces: recycler

#[derive(Default)]
pub struct Recycler {
    idle: Cell<Option<Block>>,
    busy: Cell<bool>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            idle: Cell::new(None),
            busy: Cell::new(false),
        }
    }

    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        assert!(
            !self.busy.replace(true),
            "overlapping calls on one recycler"
        );
        let layout = Layout::new::<F>();
        let block = match self.idle.take() {
            Some(block) if block.fits(layout) => block,
            _ => Block::new(layout),
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
        self.busy.set(false);
        self.idle.set(Some(block));
    }
}
