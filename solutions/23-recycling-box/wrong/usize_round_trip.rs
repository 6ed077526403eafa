//! Wrong, and only Miri can tell: the future's address goes through a `usize` and back.
//! An integer carries no provenance (no permission to access any allocation), so the
//! pointer made from it may not be used. On real hardware it works, and every test
//! passes; under Miri with `-Zmiri-strict-provenance` (how `cargo labs check 23` runs
//! it) the cast is refused.
// ANCHOR: miri
//! expect-miri: unsupported operation: integer-to-pointer casts and `ptr::with_exposed_provenance` are not supported with `-Zmiri-strict-provenance`
// ANCHOR_END: miri
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
        // ANCHOR: round_trip
        let address = block.ptr.as_ptr() as usize;
        let place = NonNull::new(address as *mut F).expect("not null");
        // ANCHOR_END: round_trip
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
