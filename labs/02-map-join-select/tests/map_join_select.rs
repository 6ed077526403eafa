//! Tests for lab 02, written once: labs/02-map-join-select and solutions/02-map-join-select
//! both run this file. They poll the combinators by hand with a waker that does nothing
//! (`Waker::noop()`), using a test future that counts its polls in a borrowed `Cell` and
//! panics if it is polled again after it finished. A counting global allocator proves
//! that composing the combinators allocates nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

use map_join_select::{Either, join, map, select};

// ANCHOR: allocator
/// The global allocator of this test binary: the system's, plus a count of allocations
/// made by the current thread. Each test runs on its own thread, so tests running in
/// parallel do not see each other's allocations.
struct CountingAllocator;

thread_local! {
    // `const` and `Cell<usize>`: no lazy initialisation and no destructor, so reading
    // it never allocates (which would recurse into the allocator).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: during thread teardown the counter may be gone; allocate anyway.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

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
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Runs `f` and returns its result and how many allocations this thread made meanwhile.
fn counting_allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = f();
    let after = ALLOCATIONS.with(Cell::get);
    (result, after - before)
}
// ANCHOR_END: allocator

/// A future that answers `Pending` `pendings` times (waking itself each time), then
/// `Ready(value)`. It counts its polls in a borrowed `Cell`, and panics if it is polled
/// again after it returned `Ready`, which the `Future` contract does not allow.
struct Steps<'a, T> {
    pendings: u32,
    value: Option<T>,
    polls: &'a Cell<u32>,
}

fn steps<T>(pendings: u32, value: T, polls: &Cell<u32>) -> Steps<'_, T> {
    Steps {
        pendings,
        value: Some(value),
        polls,
    }
}

impl<T: Unpin> Future for Steps<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.polls.set(self.polls.get() + 1);
        if self.pendings > 0 {
            self.pendings -= 1;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let value = self.value.take();
        Poll::Ready(value.expect("a future was polled again after it returned Ready"))
    }
}

/// Polls `future` once, with a waker that does nothing.
fn poll_once<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(Waker::noop()))
}

/// Polls `future` until it is ready (at most 100 times); its output and the polls it took.
fn run<F: Future + Unpin>(mut future: F) -> (F::Output, u32) {
    for polls in 1..=100 {
        if let Poll::Ready(output) = poll_once(&mut future) {
            return (output, polls);
        }
    }
    panic!("still Pending after 100 polls");
}

#[test]
fn map_applies_the_function_once_at_the_end() {
    let polls = Cell::new(0);
    let calls = Cell::new(0);
    let mut mapped = map(steps(2, 20, &polls), |n| {
        calls.set(calls.get() + 1);
        n + 1
    });

    assert!(poll_once(&mut mapped).is_pending());
    assert!(poll_once(&mut mapped).is_pending());
    assert_eq!(calls.get(), 0, "the function must wait for the output");
    assert_eq!(poll_once(&mut mapped), Poll::Ready(21));
    assert_eq!(calls.get(), 1);
    assert_eq!(
        polls.get(),
        3,
        "one poll of Map is one poll of the inner future"
    );
}

// ANCHOR: join_both
#[test]
fn join_polls_both_sides_on_every_poll() {
    let (a_polls, b_polls) = (Cell::new(0), Cell::new(0));
    let mut joined = join(steps(1, 'a', &a_polls), steps(3, "b", &b_polls));

    assert!(poll_once(&mut joined).is_pending());
    assert_eq!(
        (a_polls.get(), b_polls.get()),
        (1, 1),
        "the first poll of a Join must poll both sides, not wait for `a` first"
    );
    assert!(poll_once(&mut joined).is_pending());
    assert!(poll_once(&mut joined).is_pending());
    assert_eq!(poll_once(&mut joined), Poll::Ready(('a', "b")));
    assert_eq!(
        (a_polls.get(), b_polls.get()),
        (2, 4),
        "`a` finished on poll 2 and must not be polled after that"
    );
}
// ANCHOR_END: join_both

#[test]
fn join_waits_for_the_slower_side() {
    let (a_polls, b_polls) = (Cell::new(0), Cell::new(0));
    let joined = join(steps(3, 1, &a_polls), steps(0, 2, &b_polls));

    let (output, polls) = run(joined);

    assert_eq!(output, (1, 2));
    assert_eq!(polls, 4, "the Join is ready when its slower side is");
    assert_eq!(
        b_polls.get(),
        1,
        "`b` was ready at once and must not be polled again"
    );
}

// ANCHOR: select_loser
#[test]
fn select_hands_back_the_unfinished_future() {
    let (slow_polls, fast_polls) = (Cell::new(0), Cell::new(0));
    let mut race = select(steps(5, "slow", &slow_polls), steps(1, "fast", &fast_polls));

    assert!(poll_once(&mut race).is_pending());
    let Poll::Ready(Either::Right((winner, slow))) = poll_once(&mut race) else {
        panic!("`b` finishes on the second poll, so Select must be Ready(Right(…)) then");
    };
    assert_eq!(winner, "fast");
    assert_eq!(
        slow_polls.get(),
        2,
        "the loser was polled as often as the winner"
    );

    // The loser comes back as it was left: two polls in, three Pendings to go.
    let rest = futures::executor::block_on(slow);
    assert_eq!(rest, "slow");
    assert_eq!(slow_polls.get(), 6, "the loser continued where it stood");
}
// ANCHOR_END: select_loser

#[test]
fn select_prefers_the_first_when_both_are_ready() {
    let (a_polls, b_polls) = (Cell::new(0), Cell::new(0));
    let race = select(steps(0, 'a', &a_polls), steps(0, 'b', &b_polls));

    let (output, _) = run(race);

    let Either::Left((winner, loser)) = output else {
        panic!("both are ready at once: Select must poll `a` first, and `a` wins");
    };
    assert_eq!(winner, 'a');
    assert_eq!(
        b_polls.get(),
        0,
        "`b` must not be polled once `a` has won: its output would be lost"
    );
    assert_eq!(run(loser).0, 'b');
}

// ANCHOR: zero
#[test]
fn composing_them_allocates_nothing() {
    let (left_polls, fast_polls, slow_polls) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let left = steps(2, 20, &left_polls);
    let fast = steps(1, 'x', &fast_polls);
    let slow = steps(4, 'y', &slow_polls);

    let ((output, polls), allocations) = counting_allocations(|| {
        // An async block is not `Unpin`, but pinned on the stack it can race:
        // `Pin<&mut _>` is an `Unpin` future.
        let mut slow = pin!(async move { slow.await.to_ascii_uppercase() });
        let composed = join(map(left, |n| n * 2), select(fast, slow.as_mut()));
        let ((doubled, raced), polls) = run(composed);
        let winner = match raced {
            Either::Left((winner, _still_running)) => Some(winner),
            Either::Right(_) => None,
        };
        ((doubled, winner), polls)
    });

    assert_eq!(output, (40, Some('x')));
    assert_eq!(
        polls, 3,
        "join(map(2 Pendings), select(1 Pending, …)) is ready on poll 3"
    );
    assert_eq!(
        allocations, 0,
        "building and polling the combinators must not touch the heap"
    );
}

#[test]
fn the_allocation_counter_sees_a_box() {
    // The control: the counter works, so the zero above means something.
    let (boxed, allocations) = counting_allocations(|| std::hint::black_box(Box::new(1)));
    assert_eq!(*boxed, 1);
    assert_eq!(allocations, 1);
}
// ANCHOR_END: zero
