//! Wrong, and only Miri can tell: the future's address goes through a `usize` and back.
//! An integer carries no provenance (no permission to access any allocation), so the
//! pointer made from it may not be used. On real hardware it works, and every test
//! passes; under Miri with `-Zmiri-strict-provenance` (how `cargo labs check 23` runs
//! it) the cast is refused.
// ANCHOR: miri
//! expect-miri: unsupported operation: integer-to-pointer casts and `ptr::with_exposed_provenance` are not supported with `-Zmiri-strict-provenance`
// ANCHOR_END: miri
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
