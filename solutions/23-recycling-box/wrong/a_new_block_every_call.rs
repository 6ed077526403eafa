//! Wrong, and made to look right: the home block comes from the global allocator, so
//! every allocation count is what the tests expect, but each future that should move
//! into it is written into a fresh block from `std::alloc::System` instead, freed when
//! the future goes. One allocation per call, hidden from the counter. The test that asks
//! where each future lives sees every call land somewhere new. (The runner would also
//! refuse `std::alloc::System`, and the changed handle.)
//! expect-fail: sequential_futures_live_in_the_same_memory
//! replaces: solution

use std::alloc::{GlobalAlloc, System};

#[derive(Clone, Copy)]
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

fn block_layout(layout: Layout) -> Layout {
    Layout::from_size_align(layout.size().max(1), layout.align())
        .expect("rounding a valid layout's size up to 1 keeps it valid")
}

impl Block {
    fn new(layout: Layout) -> Block {
        let layout = block_layout(layout);
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size() && layout.align() <= self.layout.align()
    }

    /// # Safety
    /// Call it once per block, when nothing lives in it any more.
    unsafe fn free(self) {
        // SAFETY: allocated with exactly `self.layout`.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

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
        let (block, elsewhere) = if self.busy.get() {
            (Block::new(layout), false)
        } else {
            if !self.home.get().is_some_and(|home| home.fits(layout)) {
                if let Some(home) = self.home.get() {
                    // SAFETY: not busy: nothing lives in the old home block.
                    unsafe { home.free() };
                }
                self.home.set(Some(Block::new(layout)));
            }
            self.busy.set(true);
            let fresh = block_layout(layout);
            // SAFETY: `fresh` has a non-zero size.
            let ptr = NonNull::new(unsafe { System.alloc(fresh) })
                .unwrap_or_else(|| alloc::handle_alloc_error(fresh));
            (Block { ptr, layout: fresh }, true)
        };
        let place = block.ptr.cast::<F>();
        // SAFETY: the block was made for `F`, and nothing lives in it.
        unsafe { place.write(future) };
        RecycledFuture {
            future: place,
            home: self,
            elsewhere,
        }
    }

    fn release(&self, ptr: NonNull<u8>, layout: Layout, elsewhere: bool) {
        let block = Block {
            ptr,
            layout: block_layout(layout),
        };
        if elsewhere {
            // SAFETY: allocated by `System` above with this layout; its future is gone.
            unsafe { System.dealloc(ptr.as_ptr(), block.layout) };
            self.busy.set(false);
        } else {
            // SAFETY: a block of its own, allocated for this layout; its future is gone.
            unsafe { block.free() }
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

pub struct RecycledFuture<'a, T> {
    future: NonNull<dyn Future<Output = T> + 'a>,
    home: &'a Recycler,
    elsewhere: bool,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: the future is alive and never moves.
        unsafe { Pin::new_unchecked(self.future.as_mut()) }.poll(cx)
    }
}

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the future is alive until it is dropped below.
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        let _release = Release {
            home: self.home,
            ptr: self.future.cast(),
            layout,
            elsewhere: self.elsewhere,
        };
        // SAFETY: dropped here only, once.
        unsafe { self.future.drop_in_place() };
    }
}

struct Release<'a> {
    home: &'a Recycler,
    ptr: NonNull<u8>,
    layout: Layout,
    elsewhere: bool,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.home.release(self.ptr, self.layout, self.elsewhere);
    }
}
