//! Undefined behaviour: any idle block is reused, big enough or not, so a bigger future
//! is written past the end of a smaller block. Without Miri this corrupts the heap, and
//! what happens next depends on the allocator (a wrong count, a crash, or nothing yet);
//! Miri stops at the first byte out of bounds.
//! expect-miri: Undefined Behavior: memory access failed
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
        layout.align() <= self.layout.align()
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
