//! Undefined behaviour that only Miri sees: the future's pointer is derived from a
//! `&mut MaybeUninit<u8>` to the block's first byte, the way the original recycler derived
//! its payload's address from `&self` of a header. (`MaybeUninit`, because a `&mut u8` to
//! a byte nothing has written yet is undefined behaviour of its own, which Miri's
//! `-Zmiri-recursive-validation` reports first.) Under Stacked Borrows a pointer derived
//! from a reference may reach only the bytes that reference covers: one byte here, so
//! writing the future is out of bounds for it. Tree Borrows, the other model Miri
//! implements, allows it: the models disagree, and code that both accept is safe under
//! either. On real hardware every test passes.
//! expect-miri: Undefined Behavior: attempting a write access using
//! without-miri: pass
//! tree-borrows: pass
//! replaces: recycler

use std::mem::MaybeUninit;

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
        let first_byte: &mut MaybeUninit<u8> = unsafe { block.ptr.cast().as_mut() };
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
