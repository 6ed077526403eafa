//! Lab 23's tests. They poll by hand (no runtime, so the allocation counts are the
//! recycler's alone), count allocations and frees with lab-support's allocator, count
//! drops with probes, and run under Miri too (`scripts/miri`), with fewer calls.

use std::cell::Cell;
use std::pin::{Pin, pin};
use std::task::{Context, Poll};

use lab_support::Gauge;
use lab_support::alloc::{allocations_during, live_during};
use lab_support::{poll_once, poll_to_end, yield_once};
use recycling_box::{RecycledFuture, Recycler};

// Under Miri, Rust's own allocator stays: through it Miri checks that every block is
// freed with the layout it was allocated with, which a custom allocator would hide (it
// passes the pointer to `free`, which takes no layout). The ordinary run counts.
#[cfg(not(miri))]
#[global_allocator]
static GLOBAL: lab_support::alloc::CountingAllocator = lab_support::alloc::CountingAllocator;

/// The allocation count a test expects: `n`, or 0 under Miri, where nothing counts.
fn counted(n: usize) -> usize {
    if cfg!(miri) { 0 } else { n }
}

/// Sequential calls per test: Miri is about a thousand times slower.
const CALLS: usize = if cfg!(miri) { 10 } else { 1_000 };
/// Polls any one future of these tests may need.
const POLLS: usize = 10;

// ANCHOR: countdown
/// A stream behind a trait object: each `next` boxes its future in the stream's own
/// recycler, so a loop over the stream needs one allocation, not one per item.
trait Countdown {
    fn next(&self) -> RecycledFuture<'_, Option<u32>>;
}

struct Counter {
    left: Cell<u32>,
    recycler: Recycler,
}

impl Countdown for Counter {
    fn next(&self) -> RecycledFuture<'_, Option<u32>> {
        // The future borrows `self`: no `'static`, no `Send`.
        self.recycler.recycle(async move {
            yield_once().await;
            let left = self.left.get().checked_sub(1)?;
            self.left.set(left);
            Some(left)
        })
    }
}
// ANCHOR_END: countdown

/// A small future: it holds only `n` across its await.
async fn small(n: u64) -> u64 {
    yield_once().await;
    n
}

/// A bigger future: it holds 64 numbers across its await.
async fn big(n: u64) -> u64 {
    let numbers = [n; 64];
    yield_once().await;
    std::hint::black_box(numbers)[63]
}

/// A future that counts its drops, and is ready at once.
struct DropProbe<'a> {
    drops: &'a Cell<usize>,
}

impl Future for DropProbe<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}

impl Drop for DropProbe<'_> {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
    }
}

// ANCHOR: one_allocation
#[test]
fn sequential_calls_share_one_allocation() {
    let counter = Counter {
        left: Cell::new(CALLS as u32),
        recycler: Recycler::new(),
    };
    let stream: &dyn Countdown = &counter;

    let (items, allocations) = allocations_during(|| {
        poll_to_end(POLLS * (CALLS + 1), async {
            let mut items = 0;
            while let Some(left) = stream.next().await {
                assert_eq!(left as usize, CALLS - 1 - items);
                items += 1;
            }
            items
        })
    });

    assert_eq!(items, CALLS);
    assert_eq!(
        allocations,
        counted(1),
        "{} calls that never overlap made {allocations} allocations: the first call's \
         block should serve every later one{}",
        CALLS + 1,
        if allocations == 0 {
            " (none at all: a block allocated before the first call, in `Recycler::new`, \
             or taken from outside the program's global allocator, such as \
             `std::alloc::System`? Allocate the first block when the first call needs it, \
             with `std::alloc::alloc`)"
        } else {
            ""
        }
    );
}
// ANCHOR_END: one_allocation

/// A future that answers where it lives: the address of a number it keeps across its
/// await, which is at the same offset in every future of this type.
async fn whereami(n: u64) -> usize {
    let kept = n;
    yield_once().await;
    std::hint::black_box(&raw const kept).addr()
}

#[test]
fn sequential_futures_live_in_the_same_memory() {
    let recycler = Recycler::new();
    let size = size_of_val(&whereami(0));
    // Between calls the test takes memory of the future's size from the allocator: a
    // block freed after each call would go to the test, and the next call's future would
    // land elsewhere. A recycled block is never freed, so the future stays put.
    let mut taken: Vec<Vec<u8>> = Vec::with_capacity(CALLS);
    let first = poll_to_end(POLLS, recycler.recycle(whereami(0)));
    for n in 1..CALLS as u64 {
        taken.push(Vec::with_capacity(size));
        let here = poll_to_end(POLLS, recycler.recycle(whereami(n)));
        assert_eq!(
            here, first,
            "call {n}'s future does not live where the first call's did: calls that do not \
             overlap must reuse one block, not allocate (and free) one per call, whichever \
             allocator it comes from"
        );
    }
    drop(taken);
}

#[test]
fn a_bigger_future_gets_a_bigger_block_which_is_reused() {
    assert!(size_of_val(&big(0)) > size_of_val(&small(0)));
    let recycler = Recycler::new();

    let (sum, allocations) = allocations_during(|| {
        [small(1), small(2)]
            .into_iter()
            .map(|f| poll_to_end(POLLS, recycler.recycle(f)))
            .sum::<u64>()
            + poll_to_end(POLLS, recycler.recycle(big(3)))
            + poll_to_end(POLLS, recycler.recycle(small(4)))
            + poll_to_end(POLLS, recycler.recycle(big(5)))
    });

    assert_eq!(sum, 15);
    assert_eq!(
        allocations,
        counted(2),
        "small, small, big, small, big: the first small block serves the second; the big \
         future needs a new block, and that block then serves every later future that \
         fits in it"
    );
}

#[test]
fn every_future_is_dropped_exactly_once() {
    let recycler = Recycler::new();
    let drops = Cell::new(0);
    for _ in 0..CALLS {
        poll_to_end(1, recycler.recycle(DropProbe { drops: &drops }));
    }
    assert_eq!(drops.get(), CALLS, "one drop per future, no more, no less");

    let gauge = Gauge::new();
    for n in 0..CALLS as u64 {
        let answer = poll_to_end(
            POLLS,
            recycler.recycle(async {
                let _running = gauge.enter();
                small(n).await
            }),
        );
        assert_eq!(answer, n);
    }
    assert_eq!((gauge.now(), gauge.total()), (0, CALLS));
}

// ANCHOR: cancelled
#[test]
fn a_future_dropped_before_it_finishes_is_dropped() {
    let recycler = Recycler::new();
    let gauge = Gauge::new();
    {
        let mut started = pin!(recycler.recycle(async {
            let _running = gauge.enter();
            small(1).await
        }));
        assert_eq!(poll_once(started.as_mut()), Poll::Pending);
        assert_eq!(gauge.now(), 1);
    }
    assert_eq!(
        gauge.now(),
        0,
        "a future dropped while pending must be dropped too"
    );

    let drops = Cell::new(0);
    drop(recycler.recycle(DropProbe { drops: &drops }));
    assert_eq!(
        drops.get(),
        1,
        "a future dropped before its first poll, too"
    );

    // Cancelled or not, a future's block comes back for the next call.
    let (answer, allocations) =
        allocations_during(|| poll_to_end(POLLS, recycler.recycle(small(7))));
    assert_eq!((answer, allocations), (7, 0));
}
// ANCHOR_END: cancelled

// ANCHOR: overlap
#[test]
fn overlapping_calls_each_get_their_own_block() {
    let recycler = Recycler::new();
    let gauge = Gauge::new();
    let tagged = |n: u64| {
        let gauge = &gauge;
        async move {
            let _running = gauge.enter();
            small(n).await
        }
    };

    let (answers, allocations) = allocations_during(|| {
        let mut first = pin!(recycler.recycle(tagged(1)));
        let mut second = pin!(recycler.recycle(tagged(2)));
        assert_eq!(poll_once(first.as_mut()), Poll::Pending);
        assert_eq!(poll_once(second.as_mut()), Poll::Pending);
        assert_eq!(
            gauge.now(),
            2,
            "both futures are running, each in its own memory"
        );
        (poll_once(first.as_mut()), poll_once(second.as_mut()))
    });
    assert_eq!(answers, (Poll::Ready(1), Poll::Ready(2)));
    assert_eq!(
        allocations,
        counted(2),
        "the second call overlaps the first: a block of its own"
    );
    assert_eq!(gauge.now(), 0);

    // Both are gone: one block is kept, and serves the calls that follow.
    let (sum, allocations) = allocations_during(|| {
        (10..13)
            .map(|n| poll_to_end(POLLS, recycler.recycle(small(n))))
            .sum::<u64>()
    });
    assert_eq!((sum, allocations), (33, 0));
}
// ANCHOR_END: overlap

/// Polls the future in `slot`, which must still be there.
fn poll_slot<F: Future>(slot: Pin<&mut Option<F>>) -> Poll<F::Output> {
    poll_once(slot.as_pin_mut().expect("the future is still in its slot"))
}

// ANCHOR: busy
#[test]
fn the_home_block_is_busy_exactly_while_its_future_lives() {
    let recycler = Recycler::new();
    let gauge = Gauge::new();
    let tagged = |n: u64| {
        let gauge = &gauge;
        async move {
            let _running = gauge.enter();
            small(n).await
        }
    };

    let ((), allocations) = allocations_during(|| {
        // In a slot, so that the test can drop it while the third one lives.
        let mut first = pin!(Some(recycler.recycle(tagged(1))));
        assert_eq!(poll_slot(first.as_mut()), Poll::Pending);
        // An overlapping call, gone at once: its block of its own is freed...
        drop(recycler.recycle(tagged(2)));
        // ...and the home block is still the first future's.
        let mut third = pin!(recycler.recycle(tagged(3)));
        assert_eq!(poll_once(third.as_mut()), Poll::Pending);
        assert_eq!(
            poll_slot(first.as_mut()),
            Poll::Ready(1),
            "the first call's future was overwritten by the third's: when the second \
             call's block of its own came back, the home block was taken for free, though \
             the first future still lived in it"
        );
        assert_eq!(
            gauge.now(),
            1,
            "the first future is done, the third is running"
        );

        // The first future goes: the home block is free, though the third still lives.
        first.set(None);
        let (fourth, allocations) =
            allocations_during(|| poll_to_end(POLLS, recycler.recycle(small(4))));
        assert_eq!(fourth, 4);
        assert_eq!(
            allocations,
            counted(0),
            "the fourth call came when no future lived in the home block (the first had \
             gone; the third lives in a block of its own): it fits there, and must not \
             allocate"
        );
        assert_eq!(poll_once(third.as_mut()), Poll::Ready(3));
    });
    assert_eq!(
        allocations,
        counted(3),
        "the home block, and a block of its own for each of the two calls made while the \
         first future lived"
    );
    assert_eq!(gauge.now(), 0);
}
// ANCHOR_END: busy

/// A wide future: it holds 4 KiB across its await, and needs only `u64` alignment.
async fn wide(n: u64) -> u64 {
    let numbers = [n; 512];
    yield_once().await;
    std::hint::black_box(numbers)[511]
}

/// A type that must sit at an address that is a multiple of 1024.
#[repr(align(1024))]
struct Aligned(#[allow(dead_code)] u8);

/// A future that keeps an `Aligned` across its await, and answers how far its address
/// is from a multiple of 1024 (0 when the future was placed correctly).
async fn misalignment() -> usize {
    let aligned = Aligned(1);
    yield_once().await;
    std::hint::black_box(&raw const aligned).addr() % align_of::<Aligned>()
}

// ANCHOR: alignment
#[test]
fn a_strictly_aligned_future_is_placed_aligned() {
    assert!(size_of_val(&wide(0)) >= size_of_val(&misalignment()));
    assert!(align_of_val(&wide(0)) < align_of_val(&misalignment()));
    // Eight recyclers alive at once, so eight distinct blocks: an allocator hands out a
    // block aligned to 1024 by chance about once in 64 times, never eight in a row.
    let recyclers: [Recycler; 8] = std::array::from_fn(|_| Recycler::new());
    for recycler in &recyclers {
        // An idle block big enough for the next future, but aligned only for `u64`.
        assert_eq!(poll_to_end(POLLS, recycler.recycle(wide(1))), 1);
    }
    for recycler in &recyclers {
        assert_eq!(
            poll_to_end(POLLS, recycler.recycle(misalignment())),
            0,
            "a future that needs 1024-byte alignment was placed at a misaligned address: \
             a block fits only if it is big enough and aligned at least as strictly"
        );
    }
}
// ANCHOR_END: alignment

#[test]
fn a_zero_sized_future_works() {
    struct Nothing;
    impl Future for Nothing {
        type Output = u8;
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u8> {
            Poll::Ready(42)
        }
    }
    assert_eq!(size_of::<Nothing>(), 0);
    let recycler = Recycler::new();
    for _ in 0..3 {
        assert_eq!(poll_to_end(1, recycler.recycle(Nothing)), 42);
    }
    // Two at once: the second gets a block of its own, for a future of zero bytes.
    let mut first = pin!(recycler.recycle(Nothing));
    let mut second = pin!(recycler.recycle(Nothing));
    assert_eq!(poll_once(second.as_mut()), Poll::Ready(42));
    assert_eq!(poll_once(first.as_mut()), Poll::Ready(42));
}

#[test]
fn nothing_leaks() {
    let ((), live) = live_during(|| {
        let recycler = Recycler::new();
        let gauge = Gauge::new();
        for n in 0..3 {
            poll_to_end(POLLS, recycler.recycle(small(n)));
        }
        poll_to_end(POLLS, recycler.recycle(big(1)));
        // Two calls overlap, and both blocks come back.
        let first = recycler.recycle(small(1));
        let second = recycler.recycle(big(2));
        drop(first);
        drop(second);
        // One cancelled after it started.
        let mut started = pin!(recycler.recycle(async {
            let _running = gauge.enter();
            small(3).await
        }));
        assert_eq!(poll_once(started.as_mut()), Poll::Pending);
    });
    assert_eq!(
        live, 0,
        "once the recycler and its futures are gone, every block it allocated must be freed"
    );
}
