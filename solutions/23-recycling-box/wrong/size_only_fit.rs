//! Wrong: a block "fits" when it is big enough, whatever its alignment. A future that
//! must sit at a multiple of 1024 then moves into a block aligned for `u64`: undefined
//! behaviour, seen here as a misaligned address; so does a zero-sized future aligned to
//! 1024, which lands in a block of one byte aligned to 1. (`fits` is given code.)
//! expect-fail: a_strictly_aligned_future_is_placed_aligned, a_zero_sized_future_works
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
        layout.size() <= self.layout.size()
    }

    unsafe fn free(self) {
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
