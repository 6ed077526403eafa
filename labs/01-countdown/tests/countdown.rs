//! Tests for lab 01, written once: labs/01-countdown and solutions/01-countdown both run
//! this file. They poll `Countdown` by hand with a waker that counts its wake-ups, then
//! hand it to a real executor, `futures::executor::block_on`. The counting waker, the
//! guard that turns a hang into a failure and the allocation counter come from
//! `labs/support` (lab-support). Each test records its timeline (every poll, every
//! wake-up), which `cargo labs check 01` shows when the test fails and
//! `cargo labs trace 01 TEST` shows whole.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use lab_support::alloc::{CountingAllocator, allocations_during};
use lab_support::timeline::counting_waker;
use lab_support::{MustWake, Recording, Traced, within};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// `Countdown::new(n)` in these tests is the lab's `Countdown`, in lab-support's `Traced`,
/// which records its polls on the test's timeline: it polls the countdown with the same
/// `cx`, and changes nothing it does.
struct Countdown;

impl Countdown {
    // A stand-in for the lab's constructor, so the tests read as the lab's code does.
    #[allow(clippy::new_ret_no_self)]
    fn new(n: u32) -> Traced<countdown::Countdown> {
        Traced::new(countdown::Countdown::new(n))
    }
}

/// Runs a test's body on a fresh thread under a watchdog, so that a `poll` that never
/// returns fails the test instead of hanging it; records its timeline meanwhile.
fn watched(body: impl FnOnce() + Send + 'static) {
    let _timeline = Recording::start();
    within(
        Duration::from_secs(10),
        "a poll has not returned: `poll` must answer at once, Pending or Ready, never \
         loop or wait inside",
        body,
    );
}

#[test]
fn zero_is_ready_on_the_first_poll() {
    watched(|| {
        let (counter, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut countdown = Countdown::new(0);

        assert_eq!(Pin::new(&mut countdown).poll(&mut cx), Poll::Ready(()));
        assert_eq!(
            counter.wakes(),
            0,
            "a future that is ready has nothing to be woken for"
        );
    });
}

#[test]
fn pending_exactly_n_times_then_ready() {
    watched(|| {
        let (_counter, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut countdown = Countdown::new(3);

        for poll in 1..=3 {
            assert_eq!(
                Pin::new(&mut countdown).poll(&mut cx),
                Poll::Pending,
                "Countdown::new(3) must be Pending on poll {poll} of 4"
            );
        }
        assert_eq!(
            Pin::new(&mut countdown).poll(&mut cx),
            Poll::Ready(()),
            "Countdown::new(3) must be Ready on the 4th poll"
        );
    });
}

// ANCHOR: wakes
#[test]
fn wakes_once_per_pending_and_never_after_ready() {
    watched(|| {
        let (counter, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut countdown = Countdown::new(20);

        let mut pendings = 0;
        while Pin::new(&mut countdown).poll(&mut cx).is_pending() {
            pendings += 1;
            assert_eq!(
                counter.wakes(),
                pendings,
                "every Pending must wake the waker exactly once, before poll returns"
            );
            assert!(
                pendings <= 20,
                "Countdown::new(20) is still Pending after 21 polls"
            );
        }
        assert_eq!(pendings, 20);
        assert_eq!(
            counter.wakes(),
            20,
            "poll woke the waker on its way to Ready: nobody needs polling again"
        );
    });
}
// ANCHOR_END: wakes

// ANCHOR: latest
#[test]
fn wakes_the_waker_of_the_latest_poll() {
    watched(|| {
        // A task keeps its waker wherever it runs: moving to another thread changes
        // nothing. But a future can move from one task (or combinator) to another between
        // two polls, and each passes its own waker. The stale-waker bug is *keeping* the
        // waker of an earlier poll: only the waker of the latest poll is sure to reach
        // whoever polls the future now.
        let (first, first_waker) = counting_waker();
        let (second, second_waker) = counting_waker();
        let mut countdown = Countdown::new(2);

        let poll = Pin::new(&mut countdown).poll(&mut Context::from_waker(&first_waker));
        assert!(poll.is_pending());
        assert_eq!(
            first.wakes(),
            1,
            "the first poll must wake the waker it was given, once"
        );

        let poll = Pin::new(&mut countdown).poll(&mut Context::from_waker(&second_waker));
        assert!(poll.is_pending());
        assert_eq!(
            first.wakes(),
            1,
            "the second poll woke the first poll's waker again: the future kept a stale \
             waker. Wake the waker of the poll you are in, `cx.waker()`, every time"
        );
        assert_eq!(
            second.wakes(),
            1,
            "the second poll must wake the waker it was given, once"
        );
    });
}
// ANCHOR_END: latest

#[test]
fn block_on_runs_it_to_the_end() {
    watched(|| {
        // `MustWake` relays block_on's waker and fails, instead of hanging, if a poll
        // answers Pending without waking it: a countdown waits for nothing else.
        let guarded = MustWake::woken_in_poll(Countdown::new(1_000));

        let result = futures::executor::block_on(guarded);

        let ((), polls) = result.unwrap_or_else(|why| panic!("{why}"));
        assert_eq!(
            polls, 1_001,
            "block_on polls once per wake-up, plus the first poll"
        );
    });
}

#[test]
fn a_poll_allocates_nothing() {
    watched(|| {
        // Waking costs nothing here: the counting waker is an `Arc`, so even a clone of it
        // only bumps a count. A `poll` that allocates does something it need not do, such
        // as spawning a thread to deliver the wake-up (and then waiting for it).
        let (_counter, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut countdown = Countdown::new(100);

        // Other tests check the count; this one only looks at the heap.
        let ((), allocations) = allocations_during(|| {
            for _ in 0..200 {
                if Pin::new(&mut countdown).poll(&mut cx).is_ready() {
                    break;
                }
            }
        });

        assert_eq!(
            allocations, 0,
            "polling Countdown::new(100) to the end allocated {allocations} times: a \
             countdown needs no heap. A thread spawned to deliver the wake-up (joined or \
             not) allocates on every poll and costs an OS thread per Pending; wake \
             `cx.waker()` by reference, in `poll`"
        );
    });
}
