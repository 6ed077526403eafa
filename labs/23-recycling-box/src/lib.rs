//! Lab 23: a box for a trait object's futures that reuses its memory. `Recycler::recycle`
//! boxes a future; a method of a trait object can return one (see the `Countdown` trait
//! in the tests) instead of a `Pin<Box<dyn Future + '_>>`. The starter works, but it
//! gives every future a block of its own. Make calls that do not overlap share one block
//! of memory. Task, commands and "done when": README.md; hints: `cargo labs hint 23`.

use std::alloc::{self, Layout};
use std::cell::Cell;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll};

// ANCHOR: given_block (given code: keep it as it is; `cargo labs check` compares it)
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

// ANCHOR: given_recycler (given code: keep it as it is; `cargo labs check` compares it)
/// Keeps one block of memory, the *home block*, to box one future after another in it.
#[derive(Default)]
pub struct Recycler {
    /// The home block, once there is one. The recycler owns it and frees it.
    home: Cell<Option<Block>>,
    /// Whether a future lives in the home block right now: from the `recycle` that moves
    /// it in until its drop has returned (or unwound). Yours to set and clear; the
    /// starter never uses the home block, so it stays false.
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

// ANCHOR: given_handle (given code: keep it as it is; `cargo labs check` compares it)
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

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
impl Recycler {
    /// Boxes `future`. Meant to move it into the home block when that is free and fits;
    /// the starter allocates a block of its own every time.
    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let block = Block::new(Layout::new::<F>());
        // Derived from the allocation's own pointer, never from an integer or a reference:
        // it may reach every byte of the block.
        let place = block.ptr.cast::<F>();
        // SAFETY: the block was made for `F`, and nothing lives in it.
        unsafe { place.write(future) };
        RecycledFuture {
            // An unsizing coercion: the compiler supplies `F`'s vtable.
            future: place,
            home: self,
        }
    }
}

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the future is alive until it is dropped on the next line.
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        // SAFETY: the future was written in `recycle` and is dropped only here, once.
        unsafe { self.future.drop_in_place() };
        // The starter's futures all have a block of their own, made for this layout.
        let own = Block {
            ptr: self.future.cast(),
            layout: block_layout(layout),
        };
        // SAFETY: its future is gone, and only this drop frees it.
        unsafe { own.free() }
    }
}
// ANCHOR_END: starter
