//! Tests for lab 02, written once: labs/02-map-join-select and solutions/02-map-join-select
//! both run this file. They play the task: they poll the combinators by hand with a
//! waker that counts its wake-ups (`TestTask`, from labs/support), so a child's wake-up
//! must reach the task's waker, as it must under a real executor. Their children are
//! `Steps`, a test future that is `Pending` a set number of times, waking itself each
//! time, and `Gate`s (labs/support), futures that wait until the test opens them. A
//! counting global allocator proves that composing the combinators allocates nothing.
//! Each test records its timeline (every poll, every wake-up, and which waker each child
//! was polled with), which `cargo labs check 02` shows when the test fails and
//! `cargo labs trace 02 TEST` shows whole.

use std::cell::Cell;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use lab_support::alloc::{CountingAllocator, allocations_during};
use lab_support::{Gate, MustWake, Recording, TestTask, Traced, traced, within};
use map_join_select::{Either, join, map, select};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// A wake-up from a child did not reach the task.
const LOST_WAKE: &str = "the child's wake-up must reach the task's waker. A combinator \
    that polls its children with a waker of its own (`Waker::noop()`) instead of the `cx` \
    it was given loses it, and a real executor never polls the task again";

/// The task was woken although no child made progress.
const EXTRA_WAKE: &str = "nothing happened, yet the task was woken: a combinator that \
    wakes the task by itself (to make up for a lost wake-up, or to be safe) makes the \
    executor poll it again for nothing, in a loop if it does so on every poll. Pass `cx` \
    to the children and let them wake the task";

/// A wake-up went to the task of an earlier poll.
const STALE_WAKE: &str = "the wake-up went to the task that polled first, not to the one \
    polling now: the combinator kept the waker (or a `Context`) of an earlier poll. A \
    future can be handed from one task to another between two polls; pass each poll's own \
    `cx` down, and keep no waker";

/// The task was woken by a combinator that had just returned `Ready`.
const READY_WAKE: &str = "the combinator returned Ready and woke the task as well: whoever \
    polled it has the output already, so the wake-up only makes the executor poll the \
    task again for nothing. Only a child that cannot go on yet arranges a wake-up";

/// Runs a test's body on a fresh thread under a watchdog: a `poll` that loops until its
/// children are ready never returns when they wait for an event, and the test would
/// hang instead of failing. Records the test's timeline meanwhile.
fn watched(body: impl FnOnce() + Send + 'static) {
    let _timeline = Recording::start();
    within(
        Duration::from_secs(10),
        "a poll has not returned: a combinator that loops inside `poll` until its \
         children are ready blocks the thread while they wait for an event. Poll each \
         child once per poll, and return Pending if one is not ready",
        body,
    );
}

/// A future that answers `Pending` `pendings` times (waking itself each time), then
/// `Ready(value)`. It counts its polls in a borrowed `Cell`, and panics if it is polled
/// again after it returned `Ready`, which the `Future` contract does not allow.
struct Steps<'a, T> {
    pendings: u32,
    value: Option<T>,
    polls: &'a Cell<u32>,
}

/// (In lab-support's `Traced`, which records its polls on the test's timeline as
/// "steps a", "steps b", … and changes nothing it does.)
fn steps<T: Unpin>(pendings: u32, value: T, polls: &Cell<u32>) -> Traced<Steps<'_, T>> {
    traced(
        "steps",
        Steps {
            pendings,
            value: Some(value),
            polls,
        },
    )
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

/// Polls `future` once as `task`. Every child in these tests that answers `Pending`
/// wakes the task at once, so a `Pending` without a wake-up means a lost one.
fn poll_once<F: Future + Unpin>(task: &TestTask, future: &mut F) -> Poll<F::Output> {
    let before = task.wakes();
    let poll = task.poll(future);
    if poll.is_pending() {
        assert!(task.wakes() > before, "{LOST_WAKE}");
    }
    poll
}

/// Polls `future` until it is ready (at most 100 times); its output and the polls it took.
fn run<F: Future + Unpin>(task: &TestTask, mut future: F) -> (F::Output, u32) {
    for polls in 1..=100 {
        if let Poll::Ready(output) = poll_once(task, &mut future) {
            return (output, polls);
        }
    }
    panic!("still Pending after 100 polls");
}

#[test]
fn map_applies_the_function_once_at_the_end() {
    watched(|| {
        let task = TestTask::new();
        let polls = Cell::new(0);
        let calls = Cell::new(0);
        let mut mapped = map(steps(2, 20, &polls), |n| {
            calls.set(calls.get() + 1);
            n + 1
        });

        assert!(poll_once(&task, &mut mapped).is_pending());
        assert!(poll_once(&task, &mut mapped).is_pending());
        assert_eq!(calls.get(), 0, "the function must wait for the output");
        assert_eq!(poll_once(&task, &mut mapped), Poll::Ready(21));
        assert_eq!(calls.get(), 1);
        assert_eq!(
            polls.get(),
            3,
            "one poll of Map is one poll of the inner future"
        );
    });
}

// ANCHOR: join_both
#[test]
fn join_polls_both_sides_on_every_poll() {
    watched(|| {
        let task = TestTask::new();
        let (a_polls, b_polls) = (Cell::new(0), Cell::new(0));
        let mut joined = join(steps(1, 'a', &a_polls), steps(3, "b", &b_polls));

        assert!(poll_once(&task, &mut joined).is_pending());
        assert_eq!(
            (a_polls.get(), b_polls.get()),
            (1, 1),
            "the first poll of a Join must poll both sides, not wait for `a` first"
        );
        assert!(poll_once(&task, &mut joined).is_pending());
        assert!(poll_once(&task, &mut joined).is_pending());
        assert_eq!(poll_once(&task, &mut joined), Poll::Ready(('a', "b")));
        assert_eq!(
            (a_polls.get(), b_polls.get()),
            (2, 4),
            "`a` finished on poll 2 and must not be polled after that"
        );
    });
}
// ANCHOR_END: join_both

#[test]
fn join_waits_for_the_slower_side() {
    watched(|| {
        let (a_polls, b_polls) = (Cell::new(0), Cell::new(0));
        let joined = join(steps(3, 1, &a_polls), steps(0, 2, &b_polls));

        let (output, polls) = run(&TestTask::new(), joined);

        assert_eq!(output, (1, 2));
        assert_eq!(polls, 4, "the Join is ready when its slower side is");
        assert_eq!(
            b_polls.get(),
            1,
            "`b` was ready at once and must not be polled again"
        );
    });
}

// ANCHOR: select_loser
#[test]
fn select_hands_back_the_unfinished_future() {
    watched(|| {
        let task = TestTask::new();
        let (slow_polls, fast_polls) = (Cell::new(0), Cell::new(0));
        let mut race = select(steps(5, "slow", &slow_polls), steps(1, "fast", &fast_polls));

        assert!(poll_once(&task, &mut race).is_pending());
        let Poll::Ready(Either::Right((winner, slow))) = poll_once(&task, &mut race) else {
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
    });
}
// ANCHOR_END: select_loser

#[test]
fn select_prefers_the_first_when_both_are_ready() {
    watched(|| {
        let (a_polls, b_polls) = (Cell::new(0), Cell::new(0));
        let race = select(steps(0, 'a', &a_polls), steps(0, 'b', &b_polls));

        let (output, _) = run(&TestTask::new(), race);

        let Either::Left((winner, loser)) = output else {
            panic!("both are ready at once: Select must poll `a` first, and `a` wins");
        };
        assert_eq!(winner, 'a');
        assert_eq!(
            b_polls.get(),
            0,
            "`b` must not be polled once `a` has won: its output would be lost"
        );
        assert_eq!(run(&TestTask::new(), loser).0, 'b');
    });
}

// ANCHOR: wake_reaches_the_task
#[test]
fn map_passes_the_tasks_waker_down() {
    watched(|| {
        let task = TestTask::new();
        let timer = Gate::new(); // a future that waits until the test opens it
        let unit = String::from("ms");
        // The output holds an `Rc` and borrows `unit`: no `Send`, no `'static` needed.
        let mut mapped = map(timer.wait(), |n: u32| (Rc::new(n * 2), unit.as_str()));

        assert!(task.poll(&mut mapped).is_pending());
        assert_eq!(task.wakes(), 0, "{EXTRA_WAKE}");
        timer.open(21); // the event: the gate wakes the waker it was polled with
        assert_eq!(task.wakes(), 1, "{LOST_WAKE}");
        assert_eq!(task.poll(&mut mapped), Poll::Ready((Rc::new(42), "ms")));
    });
}
// ANCHOR_END: wake_reaches_the_task

#[test]
fn join_passes_the_tasks_waker_to_both_sides() {
    watched(|| {
        let task = TestTask::new();
        let (a, b) = (Gate::new(), Gate::new());
        let mut joined = join(a.wait(), b.wait());
        let word = String::from("b");

        assert!(task.poll(&mut joined).is_pending());
        assert_eq!(task.wakes(), 0, "{EXTRA_WAKE}");
        // `b` finishes first: its wake-up has to reach the task through the Join. Its
        // output borrows `word`, and `a`'s holds an `Rc`: no `'static`, no `Send`.
        b.open(word.as_str());
        assert_eq!(task.wakes(), 1, "`b` was woken: {LOST_WAKE}");
        assert!(task.poll(&mut joined).is_pending());
        assert_eq!(
            task.wakes(),
            1,
            "`b` is done and `a` still waits: {EXTRA_WAKE}"
        );
        a.open(Rc::new('a'));
        assert_eq!(task.wakes(), 2, "`a` was woken: {LOST_WAKE}");
        assert_eq!(task.poll(&mut joined), Poll::Ready((Rc::new('a'), "b")));
        assert_eq!(
            (a.polls(), b.polls()),
            (3, 2),
            "each side is polled on every poll until it is done, and never after"
        );
    });
}

#[test]
fn select_passes_the_tasks_waker_to_both_sides() {
    watched(|| {
        // The outputs hold an `Rc`: no `Send` needed.
        // `b` wins.
        let task = TestTask::new();
        let (a, b) = (Gate::<Rc<char>>::new(), Gate::<Rc<char>>::new());
        let mut race = select(a.wait(), b.wait());
        assert!(task.poll(&mut race).is_pending());
        assert_eq!(task.wakes(), 0, "{EXTRA_WAKE}");
        b.open(Rc::new('b'));
        assert_eq!(task.wakes(), 1, "`b` was woken: {LOST_WAKE}");
        let Poll::Ready(Either::Right((winner, _a))) = task.poll(&mut race) else {
            panic!("`b` was opened, so Select must be Ready(Right((b, a)))");
        };
        assert_eq!(*winner, 'b');

        // `a` wins.
        let task = TestTask::new();
        let (a, b) = (Gate::<Rc<char>>::new(), Gate::<Rc<char>>::new());
        let mut race = select(a.wait(), b.wait());
        assert!(task.poll(&mut race).is_pending());
        assert_eq!(task.wakes(), 0, "{EXTRA_WAKE}");
        a.open(Rc::new('a'));
        assert_eq!(task.wakes(), 1, "`a` was woken: {LOST_WAKE}");
        let Poll::Ready(Either::Left((winner, _b))) = task.poll(&mut race) else {
            panic!("`a` was opened, so Select must be Ready(Left((a, b)))");
        };
        assert_eq!(*winner, 'a');
    });
}

/// Polls `future` once as `first`, then once as `second`; runs `events` (the test opens
/// gates); then checks that the events woke `second`, the task polling now, `want`
/// times, and `first` never.
fn handed_over<F: Future + Unpin>(future: &mut F, events: impl FnOnce(), want: usize, what: &str) {
    let (first, second) = (TestTask::new(), TestTask::new());
    assert!(first.poll(future).is_pending());
    assert!(second.poll(future).is_pending());
    let before = (first.wakes(), second.wakes());
    events();
    assert_eq!(first.wakes(), before.0, "{what}: {STALE_WAKE}");
    assert_eq!(second.wakes() - before.1, want, "{what}: {LOST_WAKE}");
}

#[test]
fn they_pass_the_waker_of_the_latest_poll() {
    watched(|| {
        // Each combinator is polled once by one task, then by another, before its child's
        // event comes: the wake-up must reach the second task, the one polling it now.
        let task = TestTask::new();
        let gate = Gate::new();
        let mut mapped = map(gate.wait(), |n: u32| n + 1);
        handed_over(&mut mapped, || gate.open(1), 1, "Map");
        assert_eq!(task.poll(&mut mapped), Poll::Ready(2));

        let (a, b) = (Gate::new(), Gate::new());
        let mut joined = join(a.wait(), b.wait());
        let events = || {
            a.open('a');
            b.open('b');
        };
        handed_over(&mut joined, events, 2, "Join");
        assert_eq!(task.poll(&mut joined), Poll::Ready(('a', 'b')));

        let (a, b) = (Gate::<char>::new(), Gate::new());
        let mut race = select(a.wait(), b.wait());
        handed_over(&mut race, || b.open('b'), 1, "Select");
        assert!(matches!(
            task.poll(&mut race),
            Poll::Ready(Either::Right(('b', _)))
        ));
    });
}

/// Polls `future` once more as `task`, expects `Ready`, and checks that this last poll
/// woke nobody.
fn last_poll<F: Future + Unpin>(task: &TestTask, future: &mut F, what: &str) -> F::Output {
    let before = task.wakes();
    let Poll::Ready(output) = task.poll(future) else {
        panic!("{what}: every child is ready, so this poll must be Ready");
    };
    assert_eq!(task.wakes(), before, "{what}: {READY_WAKE}");
    output
}

#[test]
fn ready_wakes_nobody() {
    watched(|| {
        // Ready on the first poll, with children that are ready at once.
        let task = TestTask::new();
        let polls = Cell::new(0);
        let (a_polls, b_polls) = (Cell::new(0), Cell::new(0));
        let mut mapped = map(steps(0, 1, &polls), |n| n + 1);
        assert_eq!(last_poll(&task, &mut mapped, "Map"), 2);
        let mut joined = join(steps(0, 'a', &a_polls), steps(0, 'b', &b_polls));
        assert_eq!(last_poll(&task, &mut joined, "Join"), ('a', 'b'));
        let mut race = select(steps(0, 'a', &a_polls), steps(0, 'b', &b_polls));
        assert!(matches!(
            last_poll(&task, &mut race, "Select"),
            Either::Left(('a', _))
        ));

        // Ready after the children's events.
        let gate = Gate::new();
        let mut mapped = map(gate.wait(), |n: u32| n + 1);
        assert!(task.poll(&mut mapped).is_pending());
        gate.open(1);
        assert_eq!(last_poll(&task, &mut mapped, "Map"), 2);

        let (a, b) = (Gate::new(), Gate::new());
        let mut joined = join(a.wait(), b.wait());
        assert!(task.poll(&mut joined).is_pending());
        a.open('a');
        b.open('b');
        assert_eq!(last_poll(&task, &mut joined, "Join"), ('a', 'b'));

        let (a, b) = (Gate::<char>::new(), Gate::<char>::new());
        let mut race = select(a.wait(), b.wait());
        assert!(task.poll(&mut race).is_pending());
        a.open('a');
        assert!(matches!(
            last_poll(&task, &mut race, "Select"),
            Either::Left(('a', _))
        ));
    });
}

#[test]
fn they_run_under_a_real_executor() {
    watched(|| {
        let polls = [Cell::new(0), Cell::new(0), Cell::new(0)];
        let composed = join(
            map(steps(3, 20, &polls[0]), |n| n * 2),
            select(steps(5, 'x', &polls[1]), steps(2, 'y', &polls[2])),
        );

        // Under `block_on`, a lost wake-up would put the thread to sleep for good. The guard
        // relays the executor's waker and fails instead: every child here wakes at once.
        let result = futures::executor::block_on(MustWake::woken_in_poll(composed));

        let ((doubled, raced), polls) = result.unwrap_or_else(|why| panic!("{why}: {LOST_WAKE}"));
        assert_eq!(doubled, 40);
        assert!(
            matches!(raced, Either::Right(('y', _))),
            "`b` finished first"
        );
        assert_eq!(polls, 4, "ready when the slower side, Map, is: on poll 4");
    });
}

// ANCHOR: zero
#[test]
fn composing_them_allocates_nothing() {
    watched(|| {
        let task = TestTask::new();
        let (left_polls, fast_polls, slow_polls) = (Cell::new(0), Cell::new(0), Cell::new(0));
        let left = steps(2, 20, &left_polls);
        let fast = steps(1, 'x', &fast_polls);
        let slow = steps(4, 'y', &slow_polls);

        let ((output, polls), allocations) = allocations_during(|| {
            // An async block is not `Unpin`, but pinned on the stack it can race:
            // `Pin<&mut _>` is an `Unpin` future.
            let mut slow = pin!(async move { slow.await.to_ascii_uppercase() });
            let composed = join(map(left, |n| n * 2), select(fast, slow.as_mut()));
            let ((doubled, raced), polls) = run(&task, composed);
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
    });
}

#[test]
fn the_allocation_counter_sees_a_box() {
    watched(|| {
        // The control: the counter works, so the zero above means something.
        let (boxed, allocations) = allocations_during(|| std::hint::black_box(Box::new(1)));
        assert_eq!(*boxed, 1);
        assert_eq!(allocations, 1);
    });
}
// ANCHOR_END: zero
