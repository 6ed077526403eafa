//! Lab 23's tests. They poll by hand (no runtime, so the allocation counts are the
//! recycler's alone), count allocations and frees with lab-support's checked allocator
//! (which also catches a block freed with the wrong layout or twice, and poisons freed
//! memory so that a stale pointer reads garbage), count drops with probes, and run under
//! Miri too (`cargo labs check 23` runs them there), with fewer calls.

use std::alloc::Layout;
use std::cell::Cell;
use std::marker::PhantomPinned;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::task::{Context, Poll};

use lab_support::Gauge;
use lab_support::checked_alloc::{HeapCheck, POISON_WORD, allocations_during, live_during};
use lab_support::{poll_once, poll_to_end, yield_once};
use recycling_box::{RecycledFuture, Recycler};

// Under Miri, Rust's own allocator stays: Miri checks every `dealloc` against its `alloc`,
// and every access against what is still allocated, itself. The ordinary run counts, and
// checks what glibc would let pass (a wrong layout given to `dealloc`, a double free, a
// read of freed memory: freed blocks are poisoned and held back).
#[cfg(not(miri))]
#[global_allocator]
static GLOBAL: lab_support::checked_alloc::CheckedAllocator =
    lab_support::checked_alloc::CheckedAllocator;

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
    let _heap = HeapCheck::new();
    let recyclers = [
        ("Recycler::new()", Recycler::new()),
        ("Recycler::default()", Recycler::default()),
    ];
    for (made_by, recycler) in recyclers {
        let counter = Counter {
            left: Cell::new(CALLS as u32),
            recycler,
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
            "{} calls that never overlap, on a recycler made by {made_by}, made \
             {allocations} allocations: the first call's block should serve every later \
             one{}",
            CALLS + 1,
            if allocations == 0 {
                " (none at all: a block allocated before the first call, when the recycler \
                 was made, or taken from outside the program's global allocator, such as \
                 `std::alloc::System`? Allocate the first block when the first call needs \
                 it, with `std::alloc::alloc`)"
            } else {
                ""
            }
        );
    }
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
    let _heap = HeapCheck::new();
    let recycler = Recycler::new();
    let layout = Layout::for_value(&whereami(0));
    // Between calls the test takes memory of the future's layout, from the global
    // allocator and from the system's: a block freed after each call would go to the test,
    // and the next call's future would land elsewhere, whichever allocator it came from. A
    // recycled block is never freed, so the future stays put.
    let mut taken: Vec<(Vec<u8>, SystemBlock)> = Vec::with_capacity(CALLS);
    let first = poll_to_end(POLLS, recycler.recycle(whereami(0)));
    for n in 1..CALLS as u64 {
        taken.push((Vec::with_capacity(layout.size()), SystemBlock::new(layout)));
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

/// A block from `std::alloc::System`, freed when dropped.
struct SystemBlock(std::ptr::NonNull<u8>, Layout);

impl SystemBlock {
    fn new(layout: Layout) -> Self {
        use std::alloc::GlobalAlloc;
        // SAFETY: the layout of a future, which is never zero bytes here.
        let ptr = unsafe { std::alloc::System.alloc(layout) };
        SystemBlock(std::ptr::NonNull::new(ptr).expect("memory"), layout)
    }
}

impl Drop for SystemBlock {
    fn drop(&mut self) {
        use std::alloc::GlobalAlloc;
        // SAFETY: allocated by `System` with this layout, freed once.
        unsafe { std::alloc::System.dealloc(self.0.as_ptr(), self.1) }
    }
}

#[test]
fn a_bigger_future_gets_a_bigger_block_which_is_reused() {
    let _heap = HeapCheck::new();
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
    let _heap = HeapCheck::new();
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
    let _heap = HeapCheck::new();
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
    assert_eq!(
        (answer, allocations),
        (7, counted(0)),
        "the earlier futures were dropped (one while pending, one before its first poll): \
         the home block is free again and serves this call without an allocation"
    );
}
// ANCHOR_END: cancelled

// ANCHOR: overlap
#[test]
fn overlapping_calls_each_get_their_own_block() {
    let _heap = HeapCheck::new();
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
    assert_eq!(
        (sum, allocations),
        (33, counted(0)),
        "both overlapping futures are gone: the home block serves the calls that follow, \
         with no allocation"
    );
}
// ANCHOR_END: overlap

/// Polls the future in `slot`, which must still be there.
fn poll_slot<F: Future>(slot: Pin<&mut Option<F>>) -> Poll<F::Output> {
    poll_once(slot.as_pin_mut().expect("the future is still in its slot"))
}

// ANCHOR: busy
#[test]
fn the_home_block_is_busy_exactly_while_its_future_lives() {
    let _heap = HeapCheck::new();
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
    let _heap = HeapCheck::new();
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

thread_local! {
    /// Drops of `Nothing`, which has no room for a reference to a counter.
    static NOTHING_DROPS: Cell<usize> = const { Cell::new(0) };
}

/// A zero-sized future with a `Drop` of its own: no bytes, but its drop still counts.
struct Nothing;

impl Future for Nothing {
    type Output = u8;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u8> {
        Poll::Ready(42)
    }
}

impl Drop for Nothing {
    fn drop(&mut self) {
        NOTHING_DROPS.with(|d| d.set(d.get() + 1));
    }
}

/// A zero-sized future that must sit at a multiple of 1024, like every value of its type;
/// it answers how far its address is from one (0 when it was placed correctly).
#[repr(align(1024))]
struct Tick;

impl Future for Tick {
    type Output = usize;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<usize> {
        Poll::Ready(std::ptr::from_ref(&*self).addr() % align_of::<Tick>())
    }
}

#[test]
fn a_zero_sized_future_works() {
    let _heap = HeapCheck::new();
    assert_eq!((size_of::<Nothing>(), size_of::<Tick>()), (0, 0));
    let drops = || NOTHING_DROPS.with(Cell::get);
    let never_dropped = "a zero-sized future was not dropped when its RecycledFuture was: it \
                         has no bytes, but it may have a `Drop` (this one counts), which must \
                         run once, like any future's";
    let before = drops();
    let recycler = Recycler::new();
    for n in 1..=3 {
        assert_eq!(poll_to_end(1, recycler.recycle(Nothing)), 42);
        assert_eq!(drops() - before, n, "{never_dropped}");
    }
    // Two at once: the second gets a block of its own, for a future of zero bytes.
    {
        let mut first = pin!(recycler.recycle(Nothing));
        let mut second = pin!(recycler.recycle(Nothing));
        assert_eq!(poll_once(second.as_mut()), Poll::Ready(42));
        assert_eq!(poll_once(first.as_mut()), Poll::Ready(42));
    }
    assert_eq!(drops() - before, 5, "{never_dropped}");

    // Zero bytes, but aligned to 1024: in the home block, then one in a block of its own.
    let misplaced = "a zero-sized future that must sit at a multiple of 1024 was placed at a \
                     misaligned address (a dangling pointer such as \
                     `NonNull::<u8>::dangling()` is address 1): a value of zero bytes still \
                     needs an address aligned for its type";
    assert_eq!(poll_to_end(1, recycler.recycle(Tick)), 0, "{misplaced}");
    let mut first = pin!(recycler.recycle(Tick));
    let mut second = pin!(recycler.recycle(Tick));
    assert_eq!(poll_once(second.as_mut()), Poll::Ready(0), "{misplaced}");
    assert_eq!(poll_once(first.as_mut()), Poll::Ready(0), "{misplaced}");
}

#[test]
fn nothing_leaks() {
    let _heap = HeapCheck::new();
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

/// Where the forgotten future of the next test lives, kept to the end of the run: its block
/// is leaked on purpose, and Miri does not call memory that a static reaches a leak.
static FORGOTTEN: AtomicPtr<u64> = AtomicPtr::new(std::ptr::null_mut());

/// A future that, once polled (and so pinned), tells where it lives, the way an intrusive
/// wait list (tokio's `Notify`, for one) keeps a pointer into a waiting future: pinned
/// memory must stay valid until the value in it has been dropped.
struct Registers<'a> {
    stamp: u64,
    at: &'a Cell<*mut u64>,
    _pinned: PhantomPinned,
}

impl Future for Registers<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out of the pinned future.
        let this = unsafe { self.get_unchecked_mut() };
        this.at.set(&raw mut this.stamp);
        Poll::Pending
    }
}

// ANCHOR: forgotten
#[test]
fn a_forgotten_future_keeps_its_block_for_good() {
    let _heap = HeapCheck::new();
    let at = Cell::new(std::ptr::null_mut());
    let recycler = Recycler::new();
    let mut future = recycler.recycle(Registers {
        stamp: STAMP,
        at: &at,
        _pinned: PhantomPinned,
    });
    assert_eq!(poll_once(Pin::new(&mut future)), Poll::Pending);
    // Safe code: the handle is never dropped, so neither is the future, pinned in the home
    // block. The recycler is not borrowed any more, and may go.
    std::mem::forget(future);
    let ((), _, freed) = blocks_during(|| drop(recycler));
    let stamp = at.get();
    FORGOTTEN.store(stamp, Ordering::Relaxed);
    // SAFETY: the future was pinned and never dropped, so its memory must still be valid.
    let found = unsafe { stamp.read_volatile() };
    assert!(
        found == STAMP && freed == 0,
        "a future was polled in the home block, its handle forgotten (`mem::forget` is \
         safe), and the recycler dropped: the recycler freed the home block{} with the \
         future still in it, never dropped. Pinned memory must stay valid until the value \
         in it is dropped: while `busy`, the recycler's `Drop` must leak the home block",
        if found == POISON_WORD {
            " (the future's memory holds the test allocator's poison)"
        } else {
            ""
        }
    );
}
// ANCHOR_END: forgotten

// ---- Every order of calls, finishes and drops ----------------------------------------

thread_local! {
    /// What a probe found when its memory was not its own any more (it cannot trust its
    /// `log` reference then, so it writes here).
    static STALE: Cell<Option<&'static str>> = const { Cell::new(None) };
}

fn stale(what: &'static str) {
    STALE.with(|s| {
        if s.get().is_none() {
            s.set(Some(what));
        }
    });
}

/// Drops counted per probe, by id.
#[derive(Default)]
struct Log {
    drops: [Cell<u32>; 8],
}

impl Log {
    fn drops(&self, id: usize) -> u32 {
        self.drops[id].get()
    }
}

/// The first word of every live probe; a dropped probe sets it to 0, and freed memory is
/// [`POISON_WORD`].
const STAMP: u64 = 0x5EED_CAFE_F00D_0000;

/// A future that answers its `id` after one `Pending`, and checks, before it touches
/// anything else, that its memory is still its own: a block freed under it holds the test
/// allocator's poison, a block written over holds another future.
#[repr(C)]
struct Probe<'a, const PAD: usize> {
    stamp: u64,
    id: usize,
    polled: bool,
    log: &'a Log,
    /// Makes the big probe big.
    #[allow(dead_code)]
    pad: [u64; PAD],
}

impl<'a, const PAD: usize> Probe<'a, PAD> {
    fn new(id: usize, log: &'a Log) -> Self {
        Probe {
            stamp: STAMP ^ id as u64,
            id,
            polled: false,
            log,
            pad: [0; PAD],
        }
    }
}

impl<const PAD: usize> Probe<'_, PAD> {
    /// Why this memory is not a live probe any more, if it is not: read with volatile
    /// reads, so that what is in memory now counts, whatever the compiler assumes.
    fn damaged(&self) -> Option<&'static str> {
        let stamp = unsafe { std::ptr::read_volatile(&self.stamp) };
        let id = unsafe { std::ptr::read_volatile(&self.id) };
        (stamp != STAMP ^ id as u64 || stamp == POISON_WORD).then(|| damage(stamp))
    }
}

/// What a probe's memory holds, when it is not a live probe.
fn damage(stamp: u64) -> &'static str {
    match stamp {
        POISON_WORD => {
            "its memory had been freed (it holds the test allocator's poison): a block was \
             freed while its future still lived, or before the future's drop ran"
        }
        0 => "it had been dropped already, in the same memory",
        _ => "another future had been written over it",
    }
}

impl<const PAD: usize> Future for Probe<'_, PAD> {
    type Output = usize;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        if let Some(what) = self.damaged() {
            panic!("a future was polled, but {what}");
        }
        if self.polled {
            return Poll::Ready(self.id);
        }
        self.polled = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl<const PAD: usize> Drop for Probe<'_, PAD> {
    fn drop(&mut self) {
        if let Some(what) = self.damaged() {
            return stale(what);
        }
        self.log.drops[self.id].set(self.log.drops[self.id].get() + 1);
        unsafe { std::ptr::write_volatile(&mut self.stamp, 0) };
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Call(usize),
    Finish(usize),
    Drop(usize),
}

/// The futures of a scenario: 0 and 2 small, 1 big (it needs a bigger block).
const BIG: [bool; 3] = [false, true, false];

/// Every interleaving of the lives of `futures` futures (made in the order 0, 1, 2; each
/// one finished or not; each dropped), as a list of steps.
fn scenarios(futures: usize) -> Vec<Vec<Step>> {
    fn grow(
        lives: &[Vec<Step>],
        next: &mut [usize],
        script: &mut Vec<Step>,
        all: &mut Vec<Vec<Step>>,
    ) {
        if next.iter().zip(lives).all(|(n, life)| *n == life.len()) {
            all.push(script.clone());
            return;
        }
        for i in 0..lives.len() {
            let Some(&step) = lives[i].get(next[i]) else {
                continue;
            };
            // Calls in order: future i is made after future i - 1.
            if matches!(step, Step::Call(_)) && i > 0 && next[i - 1] == 0 {
                continue;
            }
            next[i] += 1;
            script.push(step);
            grow(lives, next, script, all);
            script.pop();
            next[i] -= 1;
        }
    }
    let mut all = Vec::new();
    for finished in 0..1 << futures {
        let lives: Vec<Vec<Step>> = (0..futures)
            .map(|i| {
                let mut life = vec![Step::Call(i)];
                if finished & (1 << i) != 0 {
                    life.push(Step::Finish(i));
                }
                life.push(Step::Drop(i));
                life
            })
            .collect();
        grow(&lives, &mut vec![0; futures], &mut Vec::new(), &mut all);
    }
    all
}

fn describe(script: &[Step]) -> String {
    let words: Vec<String> = script
        .iter()
        .map(|step| match *step {
            Step::Call(i) => format!("call {i} ({})", if BIG[i] { "big" } else { "small" }),
            Step::Finish(i) => format!("finish {i}"),
            Step::Drop(i) => format!("drop {i}"),
        })
        .collect();
    words.join(", ")
}

/// Where a scenario is, for a message: written only when a test fails (formatting at every
/// step would make the test slow under Miri).
struct At<'s>(&'s [Step], usize);

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let At(script, n) = *self;
        match script.get(n) {
            Some(step) => write!(
                f,
                "[{}] at step {} (`{}`)",
                describe(script),
                n + 1,
                describe(&[*step])
            ),
            None => write!(f, "[{}] then one more call", describe(script)),
        }
    }
}

/// What the home block is when a call comes, and so what the call must allocate and free.
#[derive(Clone, Copy)]
enum Home {
    /// Future `j` lives in it.
    Busy(usize),
    Fits,
    TooSmall,
    None,
}

impl Home {
    /// (allocations, frees)
    fn blocks(self) -> (usize, usize) {
        match self {
            Home::Busy(_) => (1, 0),
            Home::Fits => (0, 0),
            Home::TooSmall => (1, 1),
            Home::None => (1, 0),
        }
    }

    fn why(self, i: usize) -> String {
        match self {
            Home::Busy(j) => format!(
                "future {j} still lives in the home block (finished or not, it lives until \
                 it is dropped): call {i} needs a block of its own, and the home block must \
                 not be freed or written over"
            ),
            Home::Fits => "the home block is free and big enough: no allocation".into(),
            Home::TooSmall => format!(
                "the home block is free but too small for call {i}: one bigger block, and \
                 the old one freed"
            ),
            Home::None => "the first call allocates the home block".into(),
        }
    }
}

/// Runs `f`; returns its result and how many blocks this thread allocated and freed
/// meanwhile (0 and 0 under Miri, where nothing counts).
fn blocks_during<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    use lab_support::checked_alloc::{allocations, deallocations};
    let (allocated, freed) = (allocations(), deallocations());
    let result = f();
    (result, allocations() - allocated, deallocations() - freed)
}

/// One scenario on a fresh recycler, step by step, against what the contract says: the
/// home block is busy from the call that moves a future in until that future is dropped,
/// finished or not; every other call gets a block of its own, freed with its future.
fn run(script: &[Step]) {
    let log = Log::default();
    let recycler = Recycler::new();
    let mut slots: [Pin<&mut Option<RecycledFuture<'_, usize>>>; 3] =
        [pin!(None), pin!(None), pin!(None)];
    // The model: the home block's size (false small, true big), and who lives in it.
    let (mut home, mut home_of): (Option<bool>, Option<usize>) = (None, None);
    for (n, &step) in script.iter().enumerate() {
        let at = At(script, n);
        match step {
            Step::Call(i) => {
                let ((), allocated, freed) = blocks_during(|| {
                    let future = if BIG[i] {
                        recycler.recycle(Probe::<64>::new(i, &log))
                    } else {
                        recycler.recycle(Probe::<1>::new(i, &log))
                    };
                    slots[i].set(Some(future));
                });
                let state = match (home_of, home) {
                    (Some(j), _) => Home::Busy(j),
                    (None, Some(big)) if big || !BIG[i] => Home::Fits,
                    (None, Some(_)) => Home::TooSmall,
                    (None, None) => Home::None,
                };
                if home_of.is_none() {
                    home = Some(home.unwrap_or(false) || BIG[i]);
                    home_of = Some(i);
                }
                let (allocations, frees) = state.blocks();
                assert_eq!(
                    (allocated, freed),
                    (counted(allocations), counted(frees)),
                    "{at}: {}; it made (allocations, frees) = {:?}",
                    state.why(i),
                    (allocated, freed)
                );
            }
            Step::Finish(i) => {
                assert_eq!(
                    poll_slot(slots[i].as_mut()),
                    Poll::Pending,
                    "{at}: a probe is pending once"
                );
                assert_eq!(
                    poll_slot(slots[i].as_mut()),
                    Poll::Ready(i),
                    "{at}: future {i} answered as another future: it was written over"
                );
                assert_eq!(
                    log.drops(i),
                    0,
                    "{at}: future {i} was dropped when it finished; it must be dropped when \
                     its RecycledFuture is"
                );
            }
            Step::Drop(i) => {
                let ((), allocated, freed) = blocks_during(|| slots[i].set(None));
                let at_home = home_of == Some(i);
                if at_home {
                    home_of = None;
                }
                if let Some(what) = STALE.with(Cell::take) {
                    panic!("{at}: future {i} was dropped, but {what}");
                }
                assert_eq!(
                    log.drops(i),
                    1,
                    "{at}: future {i} must be dropped exactly once, when its RecycledFuture is"
                );
                assert_eq!(
                    (allocated, freed),
                    (0, counted(if at_home { 0 } else { 1 })),
                    "{at}: {}; it made (allocations, frees) = {:?}",
                    if at_home {
                        "this future lived in the home block: the block stays for the next \
                         call, nothing is freed"
                    } else {
                        "this future had a block of its own: that block is freed, once"
                    },
                    (allocated, freed)
                );
            }
        }
    }
    // Everything is gone: the home block serves the next call.
    let at = At(script, script.len());
    let (answer, allocated, freed) =
        blocks_during(|| poll_to_end(POLLS, recycler.recycle(Probe::<1>::new(3, &log))));
    assert_eq!(
        (answer, allocated, freed),
        (3, 0, 0),
        "{at}: every future is gone, so the home block is free and must serve it, with no \
         allocation and no free"
    );
    if let Some(what) = STALE.with(Cell::take) {
        panic!("{at}: a future was dropped, but {what}");
    }
}

// ANCHOR: orders
#[test]
fn every_order_of_calls_finishes_and_drops() {
    let _heap = HeapCheck::new();
    // Three futures make 680 scenarios; Miri, which is slow, runs the 23 of two futures.
    for script in &scenarios(if cfg!(miri) { 2 } else { 3 }) {
        let ((), live) = live_during(|| run(script));
        assert_eq!(
            live,
            0,
            "[{}] then the recycler went away: every block it allocated must be freed, once",
            describe(script)
        );
    }
}
// ANCHOR_END: orders

// ---- Futures that call back, and futures that panic -----------------------------------

/// A future that boxes another future in the same recycler, and runs it to the end, when
/// it is polled or (`on_drop`) when it is dropped: code in a future, or in a destructor,
/// may use the recycler like any other code. Before and after, it checks that its memory
/// is still its own.
#[repr(C)]
struct CallsBack<'a> {
    stamp: u64,
    on_drop: bool,
    recycler: &'a Recycler,
    log: &'a Log,
    answered: &'a Cell<Option<usize>>,
}

const CALLS_BACK: u64 = 0xCA11_BAC4_0000_0001;

impl CallsBack<'_> {
    fn intact(&self) -> bool {
        let stamp = unsafe { std::ptr::read_volatile(&self.stamp) };
        stamp == CALLS_BACK
    }

    /// Makes and runs the inner call; `Err` when this future was written over meanwhile.
    fn call_back(&self) -> Result<(), &'static str> {
        if !self.intact() {
            return Err("its memory was not its own any more: freed, or written over");
        }
        let answered = self.answered;
        let answer = poll_to_end(POLLS, self.recycler.recycle(Probe::<1>::new(5, self.log)));
        if !self.intact() {
            // (Its other fields may be garbage now: it touches none.)
            return Err(
                "the future its own call made had been written over it: a block is \
                 not free until the future in it has been dropped and its drop has returned",
            );
        }
        answered.set(Some(answer));
        Ok(())
    }
}

impl Future for CallsBack<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if !self.on_drop
            && let Err(what) = self.call_back()
        {
            panic!(
                "a future made a call to its own recycler while it was polled, and found that \
                 {what}"
            );
        }
        Poll::Ready(())
    }
}

impl Drop for CallsBack<'_> {
    fn drop(&mut self) {
        if !self.intact() {
            return stale("its memory was not its own when its drop began: freed, or written over");
        }
        if self.on_drop
            && let Err(what) = self.call_back()
        {
            stale(what);
        }
    }
}

// ANCHOR: reentrant
#[test]
fn a_future_may_use_its_recycler_while_polled_or_dropped() {
    let _heap = HeapCheck::new();
    let log = Log::default();
    let recycler = Recycler::new();
    // A big future first: the home block is then big enough for every future below.
    assert_eq!(
        poll_to_end(POLLS, recycler.recycle(Probe::<64>::new(0, &log))),
        0
    );
    let answered = Cell::new(None);
    let calls_back = |on_drop| CallsBack {
        stamp: CALLS_BACK,
        on_drop,
        recycler: &recycler,
        log: &log,
        answered: &answered,
    };

    // Polled: the future in the home block boxes another one in the same recycler.
    let ((), allocations) =
        allocations_during(|| poll_to_end(POLLS, recycler.recycle(calls_back(false))));
    if let Some(what) = STALE.with(Cell::take) {
        panic!(
            "a future made a call to its own recycler while it was polled, and then a future \
             found that {what}"
        );
    }
    assert_eq!(
        answered.take(),
        Some(5),
        "the call made while polled ran to the end"
    );
    assert_eq!(
        allocations,
        counted(1),
        "a future in the home block made a call while it was polled: that call needs a \
         block of its own (one allocation), the home block is busy"
    );

    // Dropped: the future in the home block boxes (and runs) another one from its drop.
    let ((), live) = live_during(|| drop(recycler.recycle(calls_back(true))));
    if let Some(what) = STALE.with(Cell::take) {
        panic!(
            "a future made a call to its own recycler while it was dropped, and then a future \
             found that {what}"
        );
    }
    assert_eq!(
        answered.take(),
        Some(5),
        "the call made while dropped ran to the end"
    );
    assert_eq!(
        log.drops(5),
        2,
        "both calls' futures were dropped, once each"
    );
    assert_eq!(
        live, 0,
        "the drop's call had a block of its own, freed with its future"
    );
}
// ANCHOR_END: reentrant

/// Panics without a message: `resume_unwind` skips the panic hook, so nothing is printed,
/// and nothing allocated stays behind once the panic is caught (the test counts blocks).
fn deliberate_panic() -> ! {
    std::panic::resume_unwind(Box::new("a deliberate panic (the test catches it)"))
}

/// A future that is ready at once and panics when dropped (unless a panic is unwinding
/// already: a second one would abort the tests). It counts the runs of its `drop`, and
/// owns a heap buffer, which the drop glue frees after that `drop` panicked: a future
/// dropped again would free it twice. Its drop first checks that its memory is still its
/// own, like `Probe`'s.
struct PanicsOnDrop<'a> {
    stamp: u64,
    drops: &'a Cell<usize>,
    #[allow(dead_code)]
    buffer: Vec<u64>,
}

impl<'a> PanicsOnDrop<'a> {
    fn new(drops: &'a Cell<usize>) -> Self {
        PanicsOnDrop {
            stamp: STAMP,
            drops,
            buffer: vec![7; 4],
        }
    }
}

impl Future for PanicsOnDrop<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}

impl Drop for PanicsOnDrop<'_> {
    fn drop(&mut self) {
        let stamp = unsafe { std::ptr::read_volatile(&self.stamp) };
        if stamp != STAMP {
            stale(damage(stamp));
            // Its fields are garbage: keep the drop glue away from the buffer's pointer.
            std::mem::forget(std::mem::take(&mut self.buffer));
            return;
        }
        self.drops.set(self.drops.get() + 1);
        if !std::thread::panicking() {
            deliberate_panic();
        }
    }
}

/// The message when a future whose drop panicked was dropped `n` times.
fn dropped_again(n: usize) -> String {
    format!(
        "a future whose drop panicked was dropped {n} times: when a drop panics, the drop \
         glue still drops the future's fields as the panic unwinds, so the future is gone; \
         dropping it again drops (and frees) its fields twice. Drop it once, and only hand \
         its block back"
    )
}

// ANCHOR: panics
#[test]
fn a_future_that_panics_still_gives_its_block_back() {
    let _heap = HeapCheck::new();
    let ((), live) = live_during(|| {
        let recycler = Recycler::new();
        // A big future first: the home block is then big enough for every future below.
        assert_eq!(poll_to_end(POLLS, recycler.recycle(big(0))), 0);
        let next_call_allocates =
            || allocations_during(|| poll_to_end(POLLS, recycler.recycle(small(1)))).1;
        // A panic in `poll`: the future is dropped while the panic unwinds.
        let panicked = catch_unwind(AssertUnwindSafe(|| {
            poll_to_end(
                POLLS,
                recycler.recycle(async {
                    yield_once().await;
                    deliberate_panic()
                }),
            )
        }));
        assert!(panicked.is_err(), "the future's poll panics");
        assert_eq!(
            next_call_allocates(),
            0,
            "a future panicked in `poll`, was dropped as the panic unwound, and its home \
             block stayed busy"
        );

        // A panic in the future's own drop, in the home block.
        let drops = Cell::new(0);
        let panicked = catch_unwind(AssertUnwindSafe(|| {
            drop(recycler.recycle(PanicsOnDrop::new(&drops)))
        }));
        if let Some(what) = STALE.with(Cell::take) {
            panic!("a future in the home block was dropped, but {what}");
        }
        assert!(
            panicked.is_err(),
            "dropping a RecycledFuture must drop the future in it (whose drop panics)"
        );
        assert_eq!(drops.get(), 1, "{}", dropped_again(drops.get()));
        assert_eq!(
            next_call_allocates(),
            0,
            "the drop of the future in the home block panicked, and the home block stayed \
             busy for good: hand the block back even when the future's drop panics (in the \
             drop of a guard, which runs while the panic unwinds)"
        );

        // A panic in the future's own drop, in a block of its own.
        let first = recycler.recycle(small(2));
        let drops = Cell::new(0);
        let (panicked, live) = live_during(|| {
            catch_unwind(AssertUnwindSafe(|| {
                drop(recycler.recycle(PanicsOnDrop::new(&drops)))
            }))
            .is_err()
        });
        if let Some(what) = STALE.with(Cell::take) {
            panic!("a future in a block of its own was dropped, but {what}");
        }
        assert!(
            panicked,
            "dropping a RecycledFuture must drop the future in it (whose drop panics)"
        );
        assert_eq!(drops.get(), 1, "{}", dropped_again(drops.get()));
        assert_eq!(
            live, 0,
            "a future with a block of its own panicked in its drop, and the block was never \
             freed: hand the block back even when the future's drop panics (in the drop of \
             a guard, which runs while the panic unwinds)"
        );
        assert_eq!(poll_to_end(POLLS, first), 2);
    });
    assert_eq!(live, 0, "every block the recycler allocated is freed");
}
// ANCHOR_END: panics

// ---- What must not compile ------------------------------------------------------------

// ANCHOR: misuses
/// Code that must not compile, because safe code could then break the recycler: each line
/// marked `// refused: …` must be an error, and says why. The first function shows that the
/// API is usable at all.
const MISUSES: &str = r#"
use std::rc::Rc;
use recycling_box::Recycler;

fn needs_send<T: Send>(_: &T) {}
fn needs_sync<T: Sync>(_: &T) {}

pub fn fine() -> usize {
    let recycler = Recycler::new();
    let text = String::from("fine");
    let future = recycler.recycle(async { text.len() });
    drop(future);
    drop(text);
    drop(recycler);
    1
}

pub fn drops_the_recycler_first() {
    let recycler = Recycler::new();
    let future = recycler.recycle(async { 1 });
    drop(recycler); // refused: a future borrows its recycler
    drop(future);
}

pub fn moves_the_recycler_away() -> Recycler {
    let recycler = Recycler::new();
    let future = recycler.recycle(async { 1 });
    let moved = recycler; // refused: a future borrows its recycler
    drop(future);
    moved
}

pub fn returns_a_future_of_its_own_recycler() -> impl Future<Output = i32> {
    let recycler = Recycler::new();
    recycler.recycle(async { 1 }) // refused: a future borrows its recycler
}

pub fn drops_what_the_future_borrows() {
    let recycler = Recycler::new();
    let text = String::from("borrowed");
    let future = recycler.recycle(async { text.len() });
    drop(text); // refused: a future keeps its borrows
    drop(future);
}

pub fn clones_the_recycler(recycler: &Recycler) -> Recycler {
    recycler.clone() // refused: a recycler owns its block
}

pub fn shares_the_recycler_between_threads(recycler: &Recycler) {
    needs_sync(recycler); // refused: a recycler stays on its thread
}

pub fn sends_a_future_that_holds_an_rc() {
    let recycler = Recycler::new();
    let shared = Rc::new(1);
    let future = recycler.recycle(async move { *shared });
    needs_send(&future); // refused: a future stays on its thread
    needs_sync(&future); // refused: a future stays on its thread
}
"#;
// ANCHOR_END: misuses

/// Why a refused line of [`MISUSES`] must not compile, by the reason after `// refused:`.
fn why_refused(reason: &str) -> &'static str {
    match reason {
        "a future borrows its recycler" => {
            "while a future made by the recycler was alive: a RecycledFuture must borrow its \
             recycler (`recycle(&'a self, …) -> RecycledFuture<'a, …>`, with the same 'a), or \
             the recycler can go (and free the block) while its future still lives in it"
        }
        "a future keeps its borrows" => {
            "while the future still borrowed what it dropped: the future may then outlive \
             what it borrows (a dangling reference from safe code). Keep \
             `recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, …>`: \
             the future's borrows last as long as its handle, with no second lifetime and no \
             pointer read that swaps one lifetime for another"
        }
        "a recycler owns its block" => {
            "so a Recycler can be cloned: the two copies share one home block, put two \
             futures in it, and both free it when dropped (a double free from safe code). A \
             Recycler owns its block: no `Clone`, derived or written"
        }
        "a recycler stays on its thread" => {
            "so a Recycler is Sync: two threads could call `recycle` on one recycler at once, \
             racing on its `Cell`s and writing two futures into one block. No `unsafe impl \
             Sync`: the recycler lives on one thread"
        }
        "a future stays on its thread" => {
            "for a RecycledFuture whose future holds an `Rc`: it could be polled or dropped on \
             another thread, and the `Rc`'s count changed from two threads at once (and the \
             recycler's `Cell`s too). The handle hides its future's type, so it must never \
             be Send or Sync: no `unsafe impl`, and the given handle as it is"
        }
        other => panic!("MISUSES has a refused line without a known reason: {other}"),
    }
}

#[test]
#[cfg_attr(miri, ignore = "Miri cannot run the compiler")]
fn safe_code_cannot_misuse_the_recycler() {
    let _heap = HeapCheck::new();
    let errors = lab_support::compile_errors!("recycling_box", MISUSES)
        .unwrap_or_else(|why| panic!("could not check what compiles: {why}"));
    let refused: Vec<(usize, &str, &str)> = (1..)
        .zip(MISUSES.lines())
        .filter_map(|(n, line)| {
            let (code, reason) = line.split_once("// refused: ")?;
            Some((n, code.trim(), reason.trim()))
        })
        .collect();
    for error in &errors {
        assert!(
            refused.iter().any(|&(line, _, _)| line == error.line),
            "correct code using the recycler does not compile (line {} of the program in \
             MISUSES: {}): keep the starter's signatures",
            error.line,
            error.message
        );
    }
    for (line, code, reason) in refused {
        assert!(
            errors.iter().any(|e| e.line == line),
            "`{code}` (line {line} of the program in MISUSES) compiled, {}",
            why_refused(reason)
        );
    }
}
