//! Wrong: blocks come in powers of two, so that a slightly bigger future fits later, but
//! a block is freed with the layout the first future asked for, not the rounded one it
//! was allocated with. `dealloc` must get the allocation's own layout. glibc's `free`
//! ignores the size, so with it every test passed (an allocator with size classes would
//! put the block on the wrong list); the tests' allocator keeps each block's layout and
//! names the mismatch in every test that frees a block whose size is not a power of two.
//! expect-fail: a_bigger_future_gets_a_bigger_block_which_is_reused, a_future_dropped_before_it_finishes_is_dropped, a_future_may_use_its_recycler_while_polled_or_dropped, a_future_that_panics_still_gives_its_block_back, a_strictly_aligned_future_is_placed_aligned, every_future_is_dropped_exactly_once, every_order_of_calls_finishes_and_drops, nothing_leaks, overlapping_calls_each_get_their_own_block, sequential_futures_live_in_the_same_memory, the_home_block_is_busy_exactly_while_its_future_lives
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
