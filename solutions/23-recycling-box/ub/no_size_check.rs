//! Undefined behaviour: the home block is reused whatever its size, so a bigger future
//! is written past the end of a smaller block. Without Miri this corrupts the heap, and
//! what happens next depends on the allocator (a wrong count, a crash, or nothing yet);
//! Miri stops at the first byte out of bounds.
//! expect-miri: Undefined Behavior: memory access failed
//! replaces: block

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
    #[cold]
    #[inline(never)]
    fn new(layout: Layout) -> Block {
        let layout = block_layout(layout);
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.align() <= self.layout.align()
    }

    unsafe fn free(self) {
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
