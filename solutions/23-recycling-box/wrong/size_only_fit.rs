//! Wrong: a block "fits" when it is big enough, whatever its alignment. A future that
//! must sit at a multiple of 1024 then moves into a block aligned for `u64`: undefined
//! behaviour, seen here as a misaligned address.
//! expect-fail: a_strictly_aligned_future_is_placed_aligned
//! replaces: block

struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Block {
    fn new(layout: Layout) -> Block {
        let layout = Layout::from_size_align(layout.size().max(1), layout.align())
            .expect("rounding a valid layout's size up to 1 keeps it valid");
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size()
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
