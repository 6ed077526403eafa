//! Lab 23, solved: a box for futures that reuses one allocation across calls that do not
//! overlap. A `Recycler` owns a *home block*; a future moves in when the block is free
//! and big enough, and the block is free again once that future is dropped. A call that
//! overlaps a live one gets an allocation of its own, freed with its future. All the
//! `unsafe` is here, each block with the reason it is sound; `scripts/miri` runs the
//! lab's tests under Miri to check those reasons.

use std::alloc::{self, Layout};
use std::cell::Cell;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll};

// ANCHOR: solution
// ANCHOR: block
// ANCHOR: given_block
/// One heap allocation, and the layout it was made with: freeing it needs that layout.
#[derive(Clone, Copy)]
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

/// The layout a block for `layout` is allocated with: never zero bytes, because asking
/// the allocator for zero bytes is undefined behaviour (a zero-sized future gets one).
fn block_layout(layout: Layout) -> Layout {
    Layout::from_size_align(layout.size().max(1), layout.align())
        .expect("rounding a valid layout's size up to 1 keeps it valid")
}

impl Block {
    /// A new allocation with room for a value of `layout`.
    #[cold]
    #[inline(never)]
    fn new(layout: Layout) -> Block {
        let layout = block_layout(layout);
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    /// Can a value of `layout` live here? Big enough, and aligned at least as strictly.
    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size() && layout.align() <= self.layout.align()
    }

    /// Frees the allocation.
    ///
    /// # Safety
    /// Call it once per block, when nothing lives in it any more.
    unsafe fn free(self) {
        // SAFETY: `ptr` came from `alloc::alloc` with exactly `self.layout`; the caller
        // promises it is freed once, and unused.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
// ANCHOR_END: given_block
// ANCHOR_END: block

// ANCHOR: recycler
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
            Block::new(layout)
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
    /// free again, or a block of its own is freed.
    #[inline]
    fn release(&self, ptr: NonNull<u8>, layout: Layout) {
        match self.home.get() {
            Some(home) if home.ptr == ptr => self.busy.set(false),
            _ => {
                let own = Block {
                    ptr,
                    layout: block_layout(layout),
                };
                // SAFETY: this future had a block of its own, allocated in `recycle` with
                // `block_layout` of the future's layout, which is `layout`; its future is
                // gone, and only this call frees it.
                unsafe { own.free() }
            }
        }
    }
}
// ANCHOR_END: recycler

// ANCHOR: future
// ANCHOR: given_handle
/// A future boxed by a [`Recycler`]: it lives in the recycler's memory (or in a block of
/// its own), and hands that memory back when dropped.
pub struct RecycledFuture<'a, T> {
    /// The future, behind a pointer that carries its vtable (and so its size and
    /// alignment).
    future: NonNull<dyn Future<Output = T> + 'a>,
    home: &'a Recycler,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: the future is alive (it is dropped only in `drop`), it never moves (it
        // stays in its block until then, whatever happens to `self`), and `&mut self`
        // means nobody else is using it.
        let future = unsafe { Pin::new_unchecked(self.future.as_mut()) };
        future.poll(cx)
    }
}
// ANCHOR_END: given_handle

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the future is alive until it is dropped below.
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        // Hands the block back when this function ends: after the future is gone, and
        // even if the future's own drop panics (or a block would be lost, or the home
        // block stay busy for good).
        let _release = Release {
            home: self.home,
            ptr: self.future.cast(),
            layout,
        };
        // SAFETY: the future was written in `recycle` and is dropped only here, once,
        // whether it finished or not. Its block is handed back only after this line.
        unsafe { self.future.drop_in_place() };
    }
}

/// Hands a future's block back to its recycler when dropped.
struct Release<'a> {
    home: &'a Recycler,
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.home.release(self.ptr, self.layout);
    }
}
// ANCHOR_END: future
// ANCHOR_END: solution
