//! Wrong: a call that overlaps gets its block of its own from `std::alloc::System` ("the
//! system allocator is faster for short-lived blocks"), with a one-byte token from the
//! global allocator that makes every count come out as the tests expect. Recycling works,
//! Miri finds nothing, and every test passes: but the blocks go around the allocator the
//! program chose (jemalloc, a counting allocator), and the tests' counts no longer count
//! them. The runner refuses `std::alloc::System` in this lab: allocate through
//! `std::alloc`, which the tests see.
//! expect-lesson: alloc::System
//! replaces: recycler

use std::alloc::{GlobalAlloc, System};

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
    /// Boxes `future`: in the home block if it is free, after replacing it with a bigger
    /// one if the future does not fit. If a future already lives there (the calls
    /// overlap), the new one gets a block of its own, freed when it is dropped.
    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = if self.busy.get() {
            system_block(layout)
        } else {
            let block = match self.home.get() {
                Some(home) if home.fits(layout) => home,
                too_small => {
                    if let Some(home) = too_small {
                        // SAFETY: not busy, so nothing lives in the old home block, and
                        // it is replaced right below: it is freed once.
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
        // Derived from the allocation's own pointer, never from an integer or a reference:
        // it may reach every byte of the block.
        let place = block.ptr.cast::<F>();
        // SAFETY: the block is big enough and aligned for `F` (it fits, or was made for
        // `F`), and nothing lives in it: it is new, or the home block was not busy.
        unsafe { place.write(future) };
        RecycledFuture {
            // An unsizing coercion: the compiler supplies `F`'s vtable.
            future: place,
            home: self,
        }
    }

    /// The future that lived at `ptr` (with `layout`) has been dropped: the home block is
    /// free again, or a block of its own goes back to the system, with its token.
    #[inline]
    fn release(&self, ptr: NonNull<u8>, layout: Layout) {
        match self.home.get() {
            Some(home) if home.ptr == ptr => self.busy.set(false),
            _ => {
                let (outer, at) = with_token(layout);
                // SAFETY: a block of its own, made by `system_block` for this layout, with
                // its token's pointer at `at`; its future is gone.
                unsafe {
                    let token = ptr.add(at).cast::<NonNull<u8>>().read();
                    alloc::dealloc(token.as_ptr(), Layout::new::<u8>());
                    System.dealloc(ptr.as_ptr(), outer);
                }
            }
        }
    }
}

/// A block of its own, for a call that overlaps: "the system allocator is faster for these
/// short-lived blocks". A one-byte token from the global allocator goes with it, so that
/// whoever counts the global allocator's calls sees one allocation and one free per block,
/// as expected; the token's pointer is kept after the future.
fn system_block(layout: Layout) -> Block {
    let (outer, at) = with_token(layout);
    // SAFETY: neither layout has a size of zero.
    unsafe {
        let ptr =
            NonNull::new(System.alloc(outer)).unwrap_or_else(|| alloc::handle_alloc_error(outer));
        let token = NonNull::new(alloc::alloc(Layout::new::<u8>()))
            .unwrap_or_else(|| alloc::handle_alloc_error(Layout::new::<u8>()));
        ptr.add(at).cast::<NonNull<u8>>().write(token);
        Block { ptr, layout: outer }
    }
}

/// A future of `layout`, then the token's pointer: the layout and the token's offset.
fn with_token(layout: Layout) -> (Layout, usize) {
    let (outer, at) = layout
        .extend(Layout::new::<NonNull<u8>>())
        .expect("a future's layout is small");
    (outer.pad_to_align(), at)
}
