//! Undefined behaviour that only Miri sees: blocks come in powers of two, so that a
//! slightly bigger future fits later, but a block is freed with the layout the first
//! future asked for, not the rounded one it was allocated with. `dealloc` must get the
//! allocation's own layout; glibc's `free` ignores the size, so every test passes, but
//! another allocator may rely on it (and one with size classes would).
//! expect-miri: incorrect layout on deallocation
//! without-miri: pass
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
        let rounded = Layout::from_size_align(layout.size().next_power_of_two(), layout.align())
            .expect("a power of two at least as big as a valid size is valid");
        let ptr = unsafe { alloc::alloc(rounded) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(rounded));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size().next_power_of_two()
            && layout.align() <= self.layout.align()
    }

    unsafe fn free(self) {
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
