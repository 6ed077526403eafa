//! Undefined behaviour that only Miri sees: the future's pointer is derived from a
//! `&mut u8` to the block's first byte, the way the original recycler derived its
//! payload's address from `&self` of a header. Under Stacked Borrows a pointer derived
//! from a reference may reach only the bytes that reference covers: one byte here, so
//! writing the future is out of bounds for it. Tree Borrows, the other model Miri
//! implements, allows it: the models disagree, and code that both accept is safe under
//! either. On real hardware every test passes.
//! expect-miri: Undefined Behavior: attempting a write access using
//! without-miri: pass
//! tree-borrows: pass
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
        let mut block = match self.idle.take() {
            Some(block) if block.fits(layout) => block,
            _ => Block::new(layout),
        };
        let first_byte: &mut u8 = unsafe { block.ptr.as_mut() };
        let place = NonNull::from(first_byte).cast::<F>();
        unsafe { place.write(future) };
        RecycledFuture {
            future: place,
            block: Some(block),
            home: self,
        }
    }

    fn give_back(&self, block: Block) {
        let keep = match self.idle.take() {
            Some(idle) if idle.layout.size() >= block.layout.size() => idle,
            _ => block,
        };
        self.idle.set(Some(keep));
    }
}
