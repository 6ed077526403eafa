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
        let mut start = block.ptr;
        let first_byte: &mut u8 = unsafe { start.as_mut() };
        let place = NonNull::from(first_byte).cast::<F>();
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
