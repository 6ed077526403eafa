//! Undefined behaviour that only Miri sees: the future's address goes through a `usize`
//! and back. An integer carries no provenance (no permission to access any allocation),
//! so the pointer made from it may not be used. On real hardware it works, and every
//! test passes; `-Zmiri-strict-provenance` refuses the cast.
//! expect-miri: integer-to-pointer casts and `ptr::with_exposed_provenance` are not supported
//! without-miri: pass
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
            Some(block) if block.fits(layout) => block,
            _ => Block::new(layout),
        };
        let address = block.ptr.as_ptr() as usize;
        let place = NonNull::new(address as *mut F).expect("not null");
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
