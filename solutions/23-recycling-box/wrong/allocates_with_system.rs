//! Wrong: recycles correctly, but takes its blocks from `std::alloc::System` instead of
//! the program's global allocator. A program that chose another allocator (jemalloc,
//! mimalloc, or the tests' counting one) does not get it here, and the tests, which count
//! through the global allocator, see no allocation at all.
//! expect-fail: a_bigger_future_gets_a_bigger_block_which_is_reused, a_future_may_use_its_recycler_while_polled_or_dropped, every_order_of_calls_finishes_and_drops, overlapping_calls_each_get_their_own_block, sequential_calls_share_one_allocation, the_home_block_is_busy_exactly_while_its_future_lives
//! replaces: block

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
        let ptr = unsafe { System.alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size() && layout.align() <= self.layout.align()
    }

    /// # Safety
    /// Call it once per block, when nothing lives in it any more.
    unsafe fn free(self) {
        // SAFETY: allocated by `System` with exactly `self.layout`.
        unsafe { System.dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
