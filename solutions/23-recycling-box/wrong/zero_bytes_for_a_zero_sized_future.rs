//! Wrong: allocates exactly the future's layout, also for a future of zero bytes. Asking
//! `alloc` for zero bytes is undefined behaviour (`GlobalAlloc::alloc`'s contract); glibc's
//! `malloc(0)` happens to return a usable pointer, so nothing seems wrong. The tests'
//! allocator reports the request.
//! expect-fail: a_zero_sized_future_works
//! replaces: block

#[derive(Clone, Copy)]
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

/// "The layout the future needs, no more."
fn block_layout(layout: Layout) -> Layout {
    layout
}

impl Block {
    #[cold]
    #[inline(never)]
    fn new(layout: Layout) -> Block {
        let layout = block_layout(layout);
        // SAFETY: "any layout will do".
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size() && layout.align() <= self.layout.align()
    }

    unsafe fn free(self) {
        // SAFETY: allocated with exactly `self.layout`.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
