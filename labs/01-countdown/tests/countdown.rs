//! Tests for lab 01, written once: labs/01-countdown and solutions/01-countdown both run
//! this file. They poll `Countdown` by hand with a waker that counts its wake-ups, then
//! hand it to a real executor, `futures::executor::block_on`.
//!
//! A waker made from `std::task::Wake` lives in an `Arc`: that is the standard library's
//! API, and only these tests need one. The solution itself needs none.
#![allow(
    clippy::disallowed_types,
    reason = "std::task::Wake is implemented on Arc<Self>; only the tests build wakers"
)]

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use countdown::Countdown;

// ANCHOR: counting_waker
/// A waker that only counts how often it is woken.
#[derive(Default)]
struct CountingWaker {
    wakes: AtomicUsize,
}

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }
}

/// A fresh counting waker: the counter to read, and the `Waker` to poll with.
fn counting_waker() -> (Arc<CountingWaker>, Waker) {
    let counter = Arc::new(CountingWaker::default());
    let waker = Waker::from(Arc::clone(&counter));
    (counter, waker)
}
// ANCHOR_END: counting_waker

fn wakes(counter: &CountingWaker) -> usize {
    counter.wakes.load(Ordering::SeqCst)
}

#[test]
fn zero_is_ready_on_the_first_poll() {
    let (counter, waker) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let mut countdown = Countdown::new(0);

    assert_eq!(Pin::new(&mut countdown).poll(&mut cx), Poll::Ready(()));
    assert_eq!(
        wakes(&counter),
        0,
        "a future that is ready has nothing to be woken for"
    );
}

#[test]
fn pending_exactly_n_times_then_ready() {
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
}

// ANCHOR: wakes
#[test]
fn wakes_once_per_pending_and_never_after_ready() {
    let (counter, waker) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let mut countdown = Countdown::new(5);

    let mut pendings = 0;
    while Pin::new(&mut countdown).poll(&mut cx).is_pending() {
        pendings += 1;
        assert_eq!(
            wakes(&counter),
            pendings,
            "every Pending must wake the waker exactly once, before poll returns"
        );
        assert!(
            pendings <= 5,
            "Countdown::new(5) is still Pending after 6 polls"
        );
    }
    assert_eq!(pendings, 5);
    assert_eq!(
        wakes(&counter),
        5,
        "poll woke the waker on its way to Ready: nobody needs polling again"
    );
}
// ANCHOR_END: wakes

#[test]
fn wakes_the_waker_of_the_latest_poll() {
    let (first, first_waker) = counting_waker();
    let (second, second_waker) = counting_waker();
    let mut countdown = Countdown::new(2);

    let poll = Pin::new(&mut countdown).poll(&mut Context::from_waker(&first_waker));
    assert!(poll.is_pending());
    // A later poll may bring another waker (the future moved into another task or
    // combinator, say): that one counts now, and a waker kept from before is stale.
    let poll = Pin::new(&mut countdown).poll(&mut Context::from_waker(&second_waker));
    assert!(poll.is_pending());

    assert_eq!(
        wakes(&first),
        1,
        "the first poll should wake the first waker"
    );
    assert_eq!(
        wakes(&second),
        1,
        "the second poll should wake the waker it was given, not one kept from before"
    );
}

/// Wraps a future for `block_on`, so a broken future fails the test instead of hanging
/// it: if the inner future answers `Pending` without waking anyone, `block_on` would
/// sleep forever. This relays the executor's waker and checks it was used.
struct MustWake<F> {
    inner: F,
    polls: usize,
}

/// Relays a wake-up to the executor's waker, and remembers that it happened.
struct Relay {
    to: Waker,
    woken: AtomicBool,
}

impl Wake for Relay {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.to.wake_by_ref();
    }
}

impl<F: Future + Unpin> Future for MustWake<F> {
    type Output = Result<(F::Output, usize), String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.polls += 1;
        let relay = Arc::new(Relay {
            to: cx.waker().clone(),
            woken: AtomicBool::new(false),
        });
        let waker = Waker::from(Arc::clone(&relay));
        match Pin::new(&mut self.inner).poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(output) => Poll::Ready(Ok((output, self.polls))),
            Poll::Pending if relay.woken.load(Ordering::SeqCst) => Poll::Pending,
            Poll::Pending => Poll::Ready(Err(format!(
                "poll {} returned Pending without waking the waker it was given: \
                 block_on would wait for that wake-up forever",
                self.polls
            ))),
        }
    }
}

#[test]
fn block_on_runs_it_to_the_end() {
    let guarded = MustWake {
        inner: Countdown::new(4),
        polls: 0,
    };

    let result = futures::executor::block_on(guarded);

    let ((), polls) = result.unwrap_or_else(|why| panic!("{why}"));
    assert_eq!(
        polls, 5,
        "block_on polls once per wake-up, plus the first poll"
    );
}
