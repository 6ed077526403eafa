//! Tests for lab 03, written once: labs/03-block-on and solutions/03-block-on both run
//! this file.
//!
//! Each test runs `block_on` on a fresh thread and waits for it with a watchdog, so a
//! waker that never wakes anything makes the test fail instead of hanging forever.
//! The watchdog is a safety net, not a timing check: a working `block_on` returns in
//! microseconds. No test sleeps.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::panic;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

use block_on::block_on;
use futures::FutureExt as _;
use futures::channel::oneshot;

/// How long a test waits for `block_on` before declaring it stuck.
const WATCHDOG: Duration = Duration::from_secs(5);

/// Runs `f` on a fresh thread and returns what it returns, or fails the test if it
/// has not returned after `WATCHDOG` (a `block_on` parked forever).
fn on_fresh_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    let handle = thread::spawn(move || {
        let _ = done.send(f());
    });
    match result.recv_timeout(WATCHDOG) {
        Ok(value) => value,
        // The thread ended without a value: it panicked. Show its panic as ours.
        Err(RecvTimeoutError::Disconnected) => match handle.join() {
            Err(payload) => panic::resume_unwind(payload),
            Ok(()) => unreachable!("the thread sends before it ends"),
        },
        Err(RecvTimeoutError::Timeout) => panic!(
            "block_on has not returned after {WATCHDOG:?}: the thread is parked and \
             nothing unparks it. Does waking the waker unpark the thread that polls?"
        ),
    }
}

#[test]
fn borrows_from_its_caller() {
    let len = on_fresh_thread(|| {
        let name = String::from("ferris");
        // The future borrows `name`: block_on needs no `'static`.
        block_on(async { name.len() })
    });
    assert_eq!(len, 6);
}

// ANCHOR: not_send
#[test]
fn runs_a_future_that_is_not_send() {
    let (answer, polls) = on_fresh_thread(|| {
        let polls = Rc::new(Cell::new(0));
        let log = RefCell::new(Vec::new());
        let counter = Rc::clone(&polls);
        // Pending three times, waking itself each time (like a `yield_now`), then
        // ready. It holds an `Rc`, so it is not `Send`: block_on must not ask for it.
        let answer = block_on(poll_fn(|cx| {
            counter.set(counter.get() + 1);
            log.borrow_mut().push(counter.get());
            if counter.get() <= 3 {
                cx.waker().wake_by_ref();
                Poll::Pending
            } else {
                Poll::Ready(log.borrow().len() * 10)
            }
        }));
        (answer, polls.get())
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
        block_on(poll_fn(move |cx| {
            let poll = value_rx.poll_unpin(cx);
            if let Some(tx) = first_poll.take() {
                tx.send(()).expect("the other thread is waiting");
            }
            poll
        }))
    });
    assert_eq!(answer, Ok(42));
}

// ANCHOR: once_per_wake
/// A future that must be woken `wakes` times, each time by another thread, before
/// it is ready. Its output is how many times it was polled.
struct NeedsWakes {
    wakes: usize,
    woken: usize,
    polls: usize,
    /// Is a waker out with the other thread, not yet used?
    waiting: bool,
    to_waker: Sender<Waker>,
    from_waker: Receiver<()>,
}

impl Future for NeedsWakes {
    type Output = usize;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        self.polls += 1;
        // The other thread says "woken" just before it calls `wake`.
        while self.from_waker.try_recv().is_ok() {
            self.woken += 1;
            self.waiting = false;
        }
        if self.woken == self.wakes {
            return Poll::Ready(self.polls);
        }
        if !self.waiting {
            self.waiting = true;
            let waker = cx.waker().clone();
            self.to_waker
                .send(waker)
                .expect("the other thread is waiting");
        }
        Poll::Pending
    }
}

#[test]
fn polls_once_per_wake() {
    const WAKES: usize = 50;
    let polls = on_fresh_thread(|| {
        let (to_waker, wakers) = mpsc::channel::<Waker>();
        let (woken, from_waker) = mpsc::channel();
        // The other thread wakes the future each time it is handed a waker.
        thread::spawn(move || {
            for waker in wakers {
                thread::yield_now(); // a busy-polling block_on gets to poll again here
                if woken.send(()).is_err() {
                    return;
                }
                waker.wake();
            }
        });
        block_on(NeedsWakes {
            wakes: WAKES,
            woken: 0,
            polls: 0,
            waiting: false,
            to_waker,
            from_waker,
        })
    });
    assert_eq!(
        polls,
        WAKES + 1,
        "a future woken {WAKES} times should be polled {} times: once at the start, then \
         once per wake. More polls mean block_on polls without being woken (busy polling).",
        WAKES + 1
    );
}
// ANCHOR_END: once_per_wake
