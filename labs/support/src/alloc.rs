//! A global allocator that counts allocations per thread. A test binary opts in with
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: lab_support::alloc::CountingAllocator = lab_support::alloc::CountingAllocator;
//! ```
//!
//! and measures with [`allocations_during`] (or [`live_during`], for leaks). Counts are per
//! thread, so tests running in parallel (each on its own thread) do not see each other's
//! allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

// ANCHOR: allocator
/// The system allocator, plus per-thread counts of allocations (a reallocation counts as
/// one) and deallocations (a reallocation counts as one of those too: it frees the old
/// block).
pub struct CountingAllocator;

thread_local! {
    // `const` and `Cell<usize>`: no lazy initialisation and no destructor, so reading
    // it never allocates (which would recurse into the allocator).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static DEALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: during thread teardown the counter may be gone; allocate anyway.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn count_free() {
    let _ = DEALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards to `System` unchanged; counting touches only a
// thread-local `Cell`, which never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        count_free();
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count_free();
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocations this thread has made so far (only meaningful when the test binary's
/// global allocator is [`CountingAllocator`]).
pub fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// Runs `f`; returns its result and how many allocations this thread made meanwhile.
pub fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = allocations();
    let result = f();
    (result, allocations() - before)
}
// ANCHOR_END: allocator

/// Deallocations this thread has made so far (only meaningful when the test binary's
/// global allocator is [`CountingAllocator`]).
pub fn deallocations() -> usize {
    DEALLOCATIONS.with(Cell::get)
}

/// Runs `f`; returns its result and how many more blocks this thread allocated than it
/// freed meanwhile: zero when `f` leaks nothing (of what it allocated on this thread).
pub fn live_during<T>(f: impl FnOnce() -> T) -> (T, isize) {
    let (allocated, freed) = (allocations(), deallocations());
    let result = f();
    let allocated = (allocations() - allocated) as isize;
    let freed = (deallocations() - freed) as isize;
    (result, allocated - freed)
}
