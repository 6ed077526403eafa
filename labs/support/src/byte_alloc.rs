//! A global allocator that counts bytes as well as blocks, per thread. Counting blocks
//! (as [`crate::alloc::CountingAllocator`] does) misses memory that grows inside one block:
//! a `Vec` or a `HashMap` that gains an entry per request stays one block while it grows
//! without end. A test binary opts in with
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: lab_support::byte_alloc::ByteCountingAllocator =
//!     lab_support::byte_alloc::ByteCountingAllocator;
//! ```
//!
//! and measures with [`live_bytes`] (what is allocated and not yet freed: flat when nothing
//! accumulates), [`allocated_bytes`] (all that was ever asked for: the cost of some work),
//! and [`live_blocks`]. Counts are per thread, so tests running in parallel (each on its
//! own thread) do not see each other's allocations; a block freed on another thread than
//! the one that allocated it moves the counts of both.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, plus per-thread counts of blocks and bytes. A reallocation
/// counts as freeing the old block and allocating the new one.
pub struct ByteCountingAllocator;

thread_local! {
    // `const` and `Cell`: no lazy initialisation and no destructor, so counting never
    // allocates (which would recurse into the allocator).
    static BLOCKS: Cell<isize> = const { Cell::new(0) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

fn allocated(size: usize) {
    // `try_with`: during thread teardown the counters may be gone; allocate anyway.
    let _ = BLOCKS.try_with(|n| n.set(n.get() + 1));
    let _ = LIVE.try_with(|n| n.set(n.get() + size as isize));
    let _ = ALLOCATED.try_with(|n| n.set(n.get() + size));
}

fn freed(size: usize) {
    let _ = BLOCKS.try_with(|n| n.set(n.get() - 1));
    let _ = LIVE.try_with(|n| n.set(n.get() - size as isize));
}

// SAFETY: every method forwards to `System` unchanged; counting touches only thread-local
// `Cell`s, which never allocate.
unsafe impl GlobalAlloc for ByteCountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocated(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocated(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        freed(layout.size());
        allocated(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        freed(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Bytes this thread has allocated and not freed, so far (only meaningful when the test
/// binary's global allocator is [`ByteCountingAllocator`]). Take it twice and subtract:
/// what was live before the test started is counted too.
pub fn live_bytes() -> isize {
    LIVE.with(Cell::get)
}

/// Blocks this thread has allocated and not freed, so far.
pub fn live_blocks() -> isize {
    BLOCKS.with(Cell::get)
}

/// Bytes this thread has asked for so far, freed or not (a reallocation counts its new
/// size in full).
pub fn allocated_bytes() -> usize {
    ALLOCATED.with(Cell::get)
}

/// Runs `f`; returns its result and how many bytes this thread asked for meanwhile.
pub fn bytes_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = allocated_bytes();
    let result = f();
    (result, allocated_bytes() - before)
}
