//! A global allocator for tests of `unsafe` code that manages memory by hand (lab 23): it
//! counts like [`crate::alloc::CountingAllocator`], and it also checks what the system
//! allocator lets pass. A test binary opts in with
//!
//! ```ignore
//! #[cfg(not(miri))] // Miri checks all of this itself, with Rust's own allocator
//! #[global_allocator]
//! static GLOBAL: lab_support::checked_alloc::CheckedAllocator =
//!     lab_support::checked_alloc::CheckedAllocator;
//! ```
//!
//! and starts each test with `let _heap = HeapCheck::new();`, which fails the test, when it
//! ends, with the first mistake the allocator saw on the test's thread:
//!
//! - a block freed with a layout other than the one it was allocated with (glibc's `free`
//!   takes no size, so it cannot tell; an allocator with size classes corrupts its lists);
//! - a block freed twice, or a pointer freed that the allocator never handed out;
//! - a request for zero bytes (undefined behaviour for `GlobalAlloc::alloc`).
//!
//! Each block carries a small header with its layout, in front of the bytes it hands out.
//! A freed block is overwritten with [`POISON`] and held back (the last [`QUARANTINE`]
//! blocks freed on each thread) before it goes back to the system, so that a stale pointer
//! reads poison, every time, instead of the next block the system would have put there.
//! Counts and mistakes are per thread, so tests running in parallel do not mix them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt;
use std::ptr;

/// The byte a freed block is filled with: a pointer made of it (0xA5A5…) is not an address
/// any program can use, and a number made of it is unlike anything a test stores.
pub const POISON: u8 = 0xA5;

/// A machine word of [`POISON`]: what a stale read of a `u64` or a pointer finds.
pub const POISON_WORD: u64 = u64::from_ne_bytes([POISON; 8]);

/// How many freed blocks each thread holds back before they go back to the system.
pub const QUARANTINE: usize = 64;

// The header in front of every block: [cookie, size, align], in the last words before the
// pointer handed out. The allocation starts `prefix(align)` bytes before that pointer.
const HEADER: usize = 3 * size_of::<usize>();
const LIVE: usize = 0x4C49_5645_B10C_0001_u64 as usize;
const FREED: usize = 0xF4EE_D0B1_0C00_0002_u64 as usize;

fn prefix(align: usize) -> usize {
    HEADER.next_multiple_of(align)
}

/// The allocation behind a block of `layout`: the header's room in front, and at least
/// the header's own alignment.
fn outer(size: usize, align: usize) -> Layout {
    let align = align.max(align_of::<usize>());
    Layout::from_size_align(size.max(1) + prefix(align), align)
        .expect("a layout a program could allocate, plus a small header")
}

/// What the allocator saw go wrong, first, on this thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mistake {
    /// `dealloc` (or `realloc`) got a layout other than the block's own.
    WrongLayout {
        size: usize,
        align: usize,
        given_size: usize,
        given_align: usize,
    },
    /// A block freed again, while the allocator still held it back.
    DoubleFree { size: usize, align: usize },
    /// A pointer the allocator never handed out (or one into the middle of a block).
    Foreign { addr: usize },
    /// `alloc` was asked for zero bytes.
    ZeroSize { align: usize },
}

impl fmt::Display for Mistake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Mistake::WrongLayout {
                size,
                align,
                given_size,
                given_align,
            } => write!(
                f,
                "a block allocated with {size} bytes, aligned to {align}, was freed with a \
                 layout of {given_size} bytes, aligned to {given_align}: `dealloc` must get \
                 exactly the layout the block was allocated with (keep it next to the \
                 pointer), not the layout of what lives in it. The system allocator ignores \
                 the size, so nothing else shows it; an allocator with size classes would \
                 put the block on the wrong list"
            ),
            Mistake::DoubleFree { size, align } => write!(
                f,
                "a block of {size} bytes, aligned to {align}, was freed twice: free each \
                 block exactly once, when nothing lives in it any more"
            ),
            Mistake::Foreign { addr } => write!(
                f,
                "`dealloc` got a pointer ({addr:#x}) that the allocator never handed out: \
                 free a block through the pointer `alloc` returned"
            ),
            Mistake::ZeroSize { align } => write!(
                f,
                "`alloc` was asked for zero bytes (aligned to {align}): that is undefined \
                 behaviour for `GlobalAlloc::alloc`; ask for at least one byte, and free \
                 with that same layout"
            ),
        }
    }
}

thread_local! {
    // `const` and `Cell`s of `Copy` values: no lazy initialisation and no destructor, so
    // using them never allocates (which would recurse into the allocator).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static DEALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static FIRST_MISTAKE: Cell<Option<Mistake>> = const { Cell::new(None) };
    static HELD: [Cell<*mut u8>; QUARANTINE] =
        const { [const { Cell::new(ptr::null_mut()) }; QUARANTINE] };
    static NEXT_HELD: Cell<usize> = const { Cell::new(0) };
}

fn note(mistake: Mistake) {
    let _ = FIRST_MISTAKE.try_with(|m| {
        if m.get().is_none() {
            m.set(Some(mistake));
        }
    });
}

fn count(counter: &'static std::thread::LocalKey<Cell<usize>>) {
    let _ = counter.try_with(|n| n.set(n.get() + 1));
}

/// The system allocator, plus per-thread counts, a layout header on every block, poison
/// on every freed block and a quarantine: see the [module](self).
pub struct CheckedAllocator;

impl CheckedAllocator {
    /// The header words of the block at `user`: [cookie, size, align].
    ///
    /// # Safety
    /// `user` must be a pointer this allocator handed out (or `check` said so).
    unsafe fn header(user: *mut u8) -> *mut usize {
        unsafe { user.sub(HEADER).cast::<usize>() }
    }

    /// The block's own (size, align), or the mistake `ptr` is.
    ///
    /// # Safety
    /// `ptr` came from a `dealloc` or `realloc` call.
    unsafe fn check(ptr: *mut u8, given: Layout) -> Result<(usize, usize), Mistake> {
        // A pointer below the first page, or not aligned for a header, is not one of ours
        // (reading in front of it could fault).
        if ptr.addr() < 4096 || !ptr.addr().is_multiple_of(align_of::<usize>()) {
            return Err(Mistake::Foreign { addr: ptr.addr() });
        }
        // SAFETY: every block this allocator hands out has its header in front of it; a
        // pointer from elsewhere is a mistake that this read is meant to catch, and heap
        // memory in front of a heap pointer is mapped.
        let header = unsafe { Self::header(ptr) };
        let (cookie, size, align) = unsafe { (*header, *header.add(1), *header.add(2)) };
        match cookie {
            LIVE if (size, align) == (given.size(), given.align()) => Ok((size, align)),
            LIVE => {
                note(Mistake::WrongLayout {
                    size,
                    align,
                    given_size: given.size(),
                    given_align: given.align(),
                });
                Ok((size, align))
            }
            FREED => Err(Mistake::DoubleFree { size, align }),
            _ => Err(Mistake::Foreign { addr: ptr.addr() }),
        }
    }

    /// Poisons the block at `user` and holds it back; the block held longest goes back to
    /// the system.
    ///
    /// # Safety
    /// `user` is a live block of this allocator, of `size` bytes.
    unsafe fn retire(user: *mut u8, size: usize) {
        unsafe {
            let header = Self::header(user);
            *header = FREED;
            ptr::write_bytes(user, POISON, size);
        }
        count(&DEALLOCATIONS);
        let evicted = HELD.try_with(|held| {
            let next = NEXT_HELD.with(Cell::get);
            NEXT_HELD.with(|n| n.set((next + 1) % QUARANTINE));
            held[next].replace(user)
        });
        let release = match evicted {
            Ok(old) => old,
            // The thread is going away: no quarantine, free at once.
            Err(_) => user,
        };
        if !release.is_null() {
            // SAFETY: a block this allocator poisoned and held back: its header still
            // says its layout (nothing writes to a quarantined block but a stale pointer).
            unsafe {
                let header = Self::header(release);
                let (size, align) = (*header.add(1), *header.add(2));
                System.dealloc(
                    release.sub(prefix(align.max(align_of::<usize>()))),
                    outer(size, align),
                );
            }
        }
    }
}

// SAFETY: every block handed out is inside an allocation from `System` made for it (with
// room for the header in front and the alignment asked for), and is returned to `System`
// with that same outer layout, once. A mistake by the caller (a wrong layout, a double
// free) is recorded, never passed on to `System`.
unsafe impl GlobalAlloc for CheckedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() == 0 {
            note(Mistake::ZeroSize {
                align: layout.align(),
            });
        }
        let outer_layout = outer(layout.size(), layout.align());
        // SAFETY: `outer_layout` is never zero bytes.
        let base = unsafe { System.alloc(outer_layout) };
        if base.is_null() {
            return base;
        }
        count(&ALLOCATIONS);
        // SAFETY: the prefix is inside the allocation, a multiple of the alignment, and
        // at least the header's size.
        unsafe {
            let user = base.add(prefix(outer_layout.align()));
            let header = Self::header(user);
            *header = LIVE;
            *header.add(1) = layout.size();
            *header.add(2) = layout.align();
            user
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was given to `dealloc`.
        match unsafe { Self::check(ptr, layout) } {
            // SAFETY: a live block of ours, of that size and alignment.
            Ok((size, _)) => unsafe { Self::retire(ptr, size) },
            Err(mistake) => note(mistake),
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was given to `realloc`.
        let (size, align) = match unsafe { Self::check(ptr, layout) } {
            Ok(own) => own,
            Err(mistake) => {
                note(mistake);
                return ptr::null_mut();
            }
        };
        let new_layout = Layout::from_size_align(new_size, align)
            .expect("realloc's caller promises a valid new layout");
        // SAFETY: a new block, the old one's bytes copied over, then the old one retired.
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                ptr::copy_nonoverlapping(ptr, new, size.min(new_size));
                Self::retire(ptr, size);
            }
            new
        }
    }
}

/// Allocations this thread has made so far through [`CheckedAllocator`] (a reallocation
/// counts as one, and as one deallocation).
pub fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// Deallocations this thread has made so far through [`CheckedAllocator`].
pub fn deallocations() -> usize {
    DEALLOCATIONS.with(Cell::get)
}

/// Runs `f`; returns its result and how many allocations this thread made meanwhile.
pub fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = allocations();
    let result = f();
    (result, allocations() - before)
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

/// The first mistake the allocator saw on this thread since the last call (or since
/// [`HeapCheck::new`]), and forgets it.
pub fn take_mistake() -> Option<Mistake> {
    FIRST_MISTAKE.with(|m| m.take())
}

/// Fails the test, when it is dropped, with the first mistake [`CheckedAllocator`] saw on
/// this thread since it was made (unless the test is failing already).
#[must_use = "the check happens when the guard is dropped: keep it in a variable"]
pub struct HeapCheck(());

impl HeapCheck {
    pub fn new() -> Self {
        take_mistake();
        HeapCheck(())
    }
}

impl Default for HeapCheck {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for HeapCheck {
    fn drop(&mut self) {
        if let Some(mistake) = take_mistake()
            && !std::thread::panicking()
        {
            panic!("{mistake}");
        }
    }
}
