//! Lab 23, solved: a box for futures that reuses one allocation across calls that do not
//! overlap. A `Recycler` keeps the memory of the last future it boxed; the next future
//! moves in if it fits. All the `unsafe` is here, each block with the reason it is sound;
//! `scripts/miri` runs the lab's tests under Miri to check those reasons.

use std::alloc::{self, Layout};
use std::cell::Cell;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll};

// ANCHOR: solution
// ANCHOR: block
/// One heap allocation, and the layout it was made with: freeing it needs that layout.
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Block {
    /// Room for a value of `layout`. Never zero bytes: asking the allocator for zero
    /// bytes is undefined behaviour, so a zero-sized future still gets one byte.
    fn new(layout: Layout) -> Block {
        let layout = Layout::from_size_align(layout.size().max(1), layout.align())
            .expect("rounding a valid layout's size up to 1 keeps it valid");
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    /// Can a value of `layout` live here? Big enough, and aligned at least as strictly.
    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size() && layout.align() <= self.layout.align()
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc::alloc` with exactly `self.layout`, and a `Block`
        // is dropped once, so this memory is freed once.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
// ANCHOR_END: block

// ANCHOR: recycler
/// Keeps the memory of the last future it boxed, to box the next one in.
#[derive(Default)]
pub struct Recycler {
    /// The block of the last future, once that future is gone. `None` at first, and
    /// while a future lives in the block: a block is never in two places at once.
    idle: Cell<Option<Block>>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            idle: Cell::new(None),
        }
    }

    /// Boxes `future`: in the idle block if there is one and the future fits, else in a
    /// new allocation. When calls overlap, the earlier future still holds the block, so
    /// the later one gets a block of its own (no panic); the bigger of the two is kept.
    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = match self.idle.take() {
            Some(block) if block.fits(layout) => block,
            // None idle (a call is still running), or too small or too loosely aligned:
            // a new block. A misfit idle block is freed at the end of this statement.
            _ => Block::new(layout),
        };
        // Derived from the allocation's own pointer, never from an integer or a reference:
        // it may reach every byte of the block.
        let place = block.ptr.cast::<F>();
        // SAFETY: the block is big enough and aligned for `F` (it fits, or was made for
        // `F`), and nothing else points into it: it came out of `idle` or is new.
        unsafe { place.write(future) };
        RecycledFuture {
            // An unsizing coercion: the compiler supplies `F`'s vtable.
            future: place,
            block: Some(block),
            home: self,
        }
    }

    /// Takes back the block of a future that is gone. If another block came back first
    /// (calls overlapped), keeps the bigger one and frees the other.
    fn give_back(&self, block: Block) {
        let keep = match self.idle.take() {
            Some(idle) if idle.layout.size() >= block.layout.size() => idle,
            _ => block,
        };
        self.idle.set(Some(keep));
    }
}
// ANCHOR_END: recycler

// ANCHOR: future
/// A future boxed by a [`Recycler`]: it lives in the recycler's memory, and gives the
/// memory back when dropped.
pub struct RecycledFuture<'a, T> {
    /// The future, inside `block`, behind a pointer that carries its vtable.
    future: NonNull<dyn Future<Output = T> + 'a>,
    /// The memory `future` lives in; `None` only once it has been handed back.
    block: Option<Block>,
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

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the future was written in `recycle` and is dropped only here, once,
        // whether it finished or not. Its block is not reused before this line.
        unsafe { self.future.drop_in_place() };
        if let Some(block) = self.block.take() {
            self.home.give_back(block);
        }
    }
}
// ANCHOR_END: future
// ANCHOR_END: solution
