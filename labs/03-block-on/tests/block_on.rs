//! Tests for lab 03, written once: labs/03-block-on and solutions/03-block-on both run
//! this file.
//!
//! Each test runs `block_on` on a fresh thread under a watchdog (`within`, from
//! labs/support), so a waker that never wakes anything makes the test fail instead of
//! hanging forever. The watchdog is a safety net, not a timing check: a working
//! `block_on` returns in microseconds. The futures count their polls and know when they
//! were woken, so a poll that no wake-up asked for fails `polls_once_per_wake` at once.
//!
//! Each test records its timeline: every future handed to block_on is in lab-support's
//! `traced`, which records each poll, and hands the future a stand-in for block_on's
//! waker that records each clone and wake-up (and on which thread) before waking
//! block_on's. `cargo labs check 03` shows the timeline when a test fails, and
//! `cargo labs trace 03 TEST` shows it whole.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

use block_on::block_on;
use futures::FutureExt as _;
use futures::channel::oneshot;
use lab_support::alloc::{CountingAllocator, allocations_during};
use lab_support::{Gauge, OsThread, Recording, traced, within};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Runs `f` on a fresh thread and returns what it returns, or fails the test if it has
/// not returned after 10 seconds.
fn on_fresh_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let _timeline = Recording::start();
    within(
        Duration::from_secs(10),
        "block_on has not returned. Either its thread is parked and nothing unparks it \
         (is the Context built from your waker, not `Waker::noop()`? Does `wake` unpark \
         the thread that called block_on? Take `thread::current()` in block_on, not in \
         `wake`), or it waits between polls for a time of its own (a sleep or a \
         `park_timeout`) instead of for the wake-up",
        f,
    )
}

/// Fails at once, rather than after the watchdog, if block_on polls with the waker that
/// does nothing: nobody could ever wake the future. (`will_wake` may miss it; the
/// watchdog then catches the hang.)
fn assert_not_noop(cx: &Context<'_>) {
    assert!(
        !cx.waker().will_wake(Waker::noop()),
        "block_on polls with `Waker::noop()`: a wake-up cannot reach it, so once the \
         future is Pending, nothing will ever unpark the thread. Build a Waker from your \
         ThreadWaker and poll with it"
    );
}

#[test]
fn borrows_from_its_caller() {
    let len = on_fresh_thread(|| {
        let name = String::from("ferris");
        // The future borrows `name`, and so does its output: block_on needs no
        // `'static`, on either.
        let first: &str = block_on(traced("the future", async { &name[..4] }));
        first.len()
    });
    assert_eq!(len, 4);
}

// ANCHOR: not_send
#[test]
fn runs_a_future_that_is_not_send() {
    let (answer, polls) = on_fresh_thread(|| {
        let polls = Rc::new(Cell::new(0));
        let log = RefCell::new(Vec::new());
        let counter = Rc::clone(&polls);
        // Pending three times, waking itself each time (like a `yield_now`), then
        // ready. It holds an `Rc`, and so does its output, so neither is `Send`:
        // block_on must not ask for it.
        let answer = block_on(traced(
            "the future",
            poll_fn(|cx| {
                counter.set(counter.get() + 1);
                log.borrow_mut().push(counter.get());
                if counter.get() <= 3 {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                } else {
                    Poll::Ready(Rc::new(log.borrow().len() * 10))
                }
            }),
        ));
        (*answer, polls.get())
    });
    assert_eq!(answer, 40);
    assert_eq!(polls, 4, "three wakes, so four polls");
}
// ANCHOR_END: not_send

#[test]
fn completes_when_woken_from_another_thread() {
    let answer = on_fresh_thread(|| {
        let (value_tx, mut value_rx) = oneshot::channel();
        let (first_poll_tx, first_poll_rx) = mpsc::channel();
        // The other thread sends the value only after the first poll has registered
        // the waker, so block_on has to wait for a wake from another thread.
        thread::spawn(move || {
            if first_poll_rx.recv().is_ok() {
                let _ = value_tx.send(42);
            }
        });
        let mut first_poll = Some(first_poll_tx);
        block_on(traced(
            "the future",
            poll_fn(move |cx| {
                assert_not_noop(cx);
                let poll = value_rx.poll_unpin(cx);
                if let Some(tx) = first_poll.take() {
                    tx.send(()).expect("the other thread is waiting");
                }
                poll
            }),
        ))
    });
    assert_eq!(answer, Ok(42));
}

/// A future that must be woken `wakes` times, each time by another thread, before it is
/// ready. Its output is how many times it was polled. When `strict`, it fails the test
/// if it is polled while its waker is out with the other thread and no wake-up came.
struct NeedsWakes {
    wakes: usize,
    woken: usize,
    polls: usize,
    strict: bool,
    /// Is a waker out with the other thread, not yet used?
    waiting: bool,
    to_waker: Sender<Waker>,
    from_waker: Receiver<()>,
}

// ANCHOR: once_per_wake
impl Future for NeedsWakes {
    type Output = usize;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        assert_not_noop(cx);
        self.polls += 1;
        // The other thread says "woken" just before it calls `wake`.
        while self.from_waker.try_recv().is_ok() {
            self.woken += 1;
            self.waiting = false;
        }
        assert!(
            !(self.strict && self.waiting),
            "poll {} came before any wake-up: block_on polled a future that nobody woke. \
             It must wait for the waker (park until unparked), not poll again in a loop, \
             after a sleep or after a timeout",
            self.polls
        );
        if self.woken == self.wakes {
            return Poll::Ready(self.polls);
        }
        if !self.waiting {
            self.waiting = true;
            let waker = cx.waker().clone();
            let _ = self.to_waker.send(waker);
        }
        Poll::Pending
    }
}

#[test]
fn polls_once_per_wake() {
    // Each wake-up comes 100 ms after the future handed out its waker, like a timer or
    // a slow peer: the time a block_on that polls without being woken (in a loop, after
    // a sleep of a few ms, after a `park_timeout`) needs to show it. Not a timing check.
    let polls = on_fresh_thread(|| woken_from_another_thread(3, 100 * MS, Strict::Yes));
    assert_eq!(polls, 4, "three wake-ups, so four polls");
}
// ANCHOR_END: once_per_wake

#[test]
fn keeps_up_with_500_wakes() {
    // Many quick wake-ups from another thread, each racing with block_on going to sleep:
    // none may be lost (a lost one hangs, and the watchdog fails the test), and none may
    // wait for a sleep of block_on's own to end (500 of them outlast the watchdog).
    let polls = on_fresh_thread(|| woken_from_another_thread(500, Duration::ZERO, Strict::No));
    assert!(polls > 500, "500 wake-ups need at least 501 polls");
}

const MS: Duration = Duration::from_millis(1);

#[derive(PartialEq)]
enum Strict {
    Yes,
    No,
}

/// Runs `NeedsWakes` under block_on; another thread wakes it `wakes` times, each time
/// `after` it was handed the waker. Returns the number of polls.
fn woken_from_another_thread(wakes: usize, after: Duration, strict: Strict) -> usize {
    let (to_waker, wakers) = mpsc::channel::<Waker>();
    let (woken, from_waker) = mpsc::channel();
    thread::spawn(move || {
        for waker in wakers {
            if after.is_zero() {
                thread::yield_now();
            } else {
                thread::sleep(after); // the only sleeps in these tests: a late event
            }
            if woken.send(()).is_err() {
                return;
            }
            waker.wake();
        }
    });
    block_on(traced(
        "the future",
        NeedsWakes {
            wakes,
            woken: 0,
            polls: 0,
            strict: strict == Strict::Yes,
            waiting: false,
            to_waker,
            from_waker,
        },
    ))
}

/// A future that wakes itself `n` times, then is ready; it allocates nothing.
fn yields(n: usize) -> impl Future<Output = ()> {
    let mut left = n;
    traced(
        "the future",
        poll_fn(move |cx| {
            assert_not_noop(cx);
            if left == 0 {
                return Poll::Ready(());
            }
            left -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }),
    )
}

#[test]
fn builds_its_waker_once() {
    let (few, many) = on_fresh_thread(|| {
        block_on(yields(10)); // anything allocated once per thread, allocated now
        let ((), few) = allocations_during(|| block_on(yields(10)));
        let ((), many) = allocations_during(|| block_on(yields(1_000)));
        (few, many)
    });
    assert_eq!(
        many, few,
        "block_on allocated {few} times for a future polled 11 times and {many} times for \
         one polled 1,001 times: it allocates on every poll. Build the waker once, before \
         the loop, and poll with it every time"
    );
}

#[test]
fn drops_the_future_before_it_returns() {
    let (output, left) = on_fresh_thread(|| {
        let alive = Gauge::new();
        // The guard lives in the future itself (the closure `poll_fn` keeps), so it goes
        // only when the future is dropped, not when it finishes.
        let guard = alive.enter();
        let mut yields = 2;
        let output = block_on(traced(
            "the future",
            poll_fn(move |cx| {
                assert_not_noop(cx);
                let _held = &guard;
                if yields == 0 {
                    return Poll::Ready("done");
                }
                yields -= 1;
                cx.waker().wake_by_ref();
                Poll::Pending
            }),
        ));
        (output, alive.now())
    });
    assert_eq!(output, "done");
    assert_eq!(
        left, 0,
        "block_on returned, but the future it ran was never dropped: its destructors (a \
         drop guard, a file to close, a lock to release, a borrow to end) never run. \
         `Box::leak` and `ManuallyDrop` leak it; `pin!` pins it on block_on's stack, which \
         drops it when block_on returns"
    );
}

/// What another thread saw of block_on's thread while it waited for 3 wake-ups.
struct Watched {
    /// Samples taken while block_on waited, and how many of them found it asleep.
    samples: usize,
    asleep: usize,
    /// How many times it went to sleep in that time.
    sleeps: u64,
}

/// Runs a future under block_on that must be woken 3 times by another thread, each time
/// 100 ms after it handed out its waker; meanwhile that thread watches block_on's thread
/// through the OS. `None` where the OS does not tell (only Linux does).
fn watch_block_on() -> Option<Watched> {
    const WAKES: usize = 3;
    let me = OsThread::current()?;
    let (to_waker, wakers) = mpsc::channel::<Waker>();
    let (woken, from_waker) = mpsc::channel();
    let watcher = thread::spawn(move || {
        let first = me.sleeps();
        let mut seen = Watched {
            samples: 0,
            asleep: 0,
            sleeps: 0,
        };
        for waker in wakers.iter().take(WAKES) {
            // 20 looks, 5 ms apart: the thread has returned Pending and should be asleep.
            for _ in 0..20 {
                thread::sleep(5 * MS);
                seen.samples += 1;
                seen.asleep += usize::from(me.asleep() == Some(true));
            }
            seen.sleeps = me.sleeps().zip(first).map_or(0, |(now, first)| now - first);
            let _ = woken.send(());
            waker.wake();
        }
        seen
    });
    let (mut wakes, mut waiting) = (0, false);
    block_on(traced(
        "the future",
        poll_fn(move |cx| {
            assert_not_noop(cx);
            while from_waker.try_recv().is_ok() {
                wakes += 1;
                waiting = false;
            }
            if wakes == WAKES {
                return Poll::Ready(());
            }
            if !waiting {
                waiting = true;
                let _ = to_waker.send(cx.waker().clone());
            }
            Poll::Pending
        }),
    ));
    Some(watcher.join().expect("the watching thread"))
}

#[test]
fn sleeps_while_it_waits() {
    let Some(seen) = on_fresh_thread(watch_block_on) else {
        return; // the OS does not say whether a thread sleeps (not Linux): nothing to check
    };
    eprintln!(
        "DEBUG asleep {}/{} sleeps {}",
        seen.asleep, seen.samples, seen.sleeps
    );
    assert!(
        seen.asleep > 0,
        "block_on's thread was never asleep while it waited 3 × 100 ms for its wake-ups \
         (0 of {} looks): it spins, polling a flag or calling `yield_now` or \
         `spin_loop` in a loop, and burns a CPU core meanwhile. Park the thread \
         (`thread::park`) until the waker unparks it",
        seen.samples
    );
    assert!(
        seen.sleeps <= 10,
        "block_on's thread went to sleep {} times while it waited for 3 wake-ups: it \
         naps (a `sleep` or a `park_timeout` in a loop) and wakes up again and again to \
         check for itself. Park until the waker unparks it: one sleep per wake-up",
        seen.sleeps
    );
}
