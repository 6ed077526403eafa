//! A future the test finishes by hand.

use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::timeline::{self, Poller, Tracked};

/// An event the test controls, like a timer or a socket it fires by hand. The future
/// [`Gate::wait`] is `Pending` until the test calls [`Gate::open`]; it keeps the waker
/// of its latest poll, and `open` wakes that waker, as a real event source does. So a
/// test can check that a wake-up reaches the task that polled (a combinator that polls
/// its children with a waker of its own breaks that chain).
///
/// The state lives in the gate, which the test owns and lends to the future: the future
/// borrows from the test, so a leftover `'static` bound does not compile, and it is not
/// `Send`. It counts its polls, and panics if it is polled again after `Ready`.
pub struct Gate<T> {
    value: Cell<Option<T>>,
    finished: Cell<bool>,
    waker: RefCell<Option<Waker>>,
    polls: Cell<usize>,
    /// Its polls and its opening, while a timeline is recorded ("gate a").
    recorded: Option<RefCell<Tracked>>,
}

impl<T> Default for Gate<T> {
    fn default() -> Self {
        Gate {
            value: Cell::new(None),
            finished: Cell::new(false),
            waker: RefCell::new(None),
            polls: Cell::new(0),
            recorded: timeline::current().map(|h| RefCell::new(Tracked::new(h, "gate"))),
        }
    }
}

impl<T> Gate<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// The future that waits for this gate: `Ready(value)` once the gate is open.
    pub fn wait(&self) -> Wait<'_, T> {
        Wait { gate: self }
    }

    /// Opens the gate with `value`, and wakes the waker of the latest poll, if any.
    pub fn open(&self, value: T) {
        if let Some(tracked) = &self.recorded {
            let tracked = tracked.borrow();
            tracked.handle().note(Some(tracked.id), "opens");
        }
        self.value.set(Some(value));
        let waker = self.waker.borrow_mut().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// How many times the future was polled.
    pub fn polls(&self) -> usize {
        self.polls.get()
    }

    /// Whether the future has returned `Ready`.
    pub fn finished(&self) -> bool {
        self.finished.get()
    }
}

/// The future of [`Gate::wait`].
#[must_use = "futures do nothing unless polled"]
pub struct Wait<'a, T> {
    gate: &'a Gate<T>,
}

impl<T> Future for Wait<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let gate = self.gate;
        let Some(tracked) = &gate.recorded else {
            return wait(gate, cx);
        };
        let mut tracked = tracked.borrow_mut();
        let guard = tracked.begin(Poller::Nested, cx.waker());
        let result = wait(gate, cx);
        guard.end(&result);
        result
    }
}

/// More polls of a closed gate than any combinator needs: a correct one polls a waiting
/// child once per poll of its own, and the tests poll a handful of times. A `poll` that
/// loops until its children are ready reaches it in milliseconds, and fails there rather
/// than spinning until the test's watchdog gives up (and on after that, on its thread).
pub const SPIN_POLLS: usize = 10_000;

fn wait<T>(gate: &Gate<T>, cx: &mut Context<'_>) -> Poll<T> {
    gate.polls.set(gate.polls.get() + 1);
    assert!(
        !gate.finished.get(),
        "a future was polled again after it returned Ready, which the Future contract \
         does not allow"
    );
    assert!(
        gate.polls.get() <= SPIN_POLLS,
        "a future that waits for an event was polled {SPIN_POLLS} times while nothing \
         happened: something polls it in a loop (a `poll` that loops until its children \
         are ready blocks its thread, spinning). Poll each child once per poll, and \
         return Pending if one is not ready"
    );
    if let Some(value) = gate.value.take() {
        gate.finished.set(true);
        return Poll::Ready(value);
    }
    // Keep this poll's waker, replacing an older one: only the latest is sure to
    // reach the task.
    let mut slot = gate.waker.borrow_mut();
    match &mut *slot {
        Some(waker) => waker.clone_from(cx.waker()),
        None => *slot = Some(cx.waker().clone()),
    }
    Poll::Pending
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counting_waker;

    #[test]
    fn a_gate_polled_in_a_loop_fails_fast() {
        let gate = Gate::<u8>::new();
        let mut wait = gate.wait();
        let (_, waker) = counting_waker();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            loop {
                let _ = Pin::new(&mut wait).poll(&mut Context::from_waker(&waker));
            }
        }));
        let message = *caught.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("polled 10000 times"), "{message}");
        assert_eq!(gate.polls(), SPIN_POLLS + 1);
    }

    #[test]
    fn opening_wakes_the_latest_waker_once() {
        let gate = Gate::new();
        let mut wait = gate.wait();
        let (first, first_waker) = counting_waker();
        let (second, second_waker) = counting_waker();

        let poll = Pin::new(&mut wait).poll(&mut Context::from_waker(&first_waker));
        assert!(poll.is_pending());
        let poll = Pin::new(&mut wait).poll(&mut Context::from_waker(&second_waker));
        assert!(poll.is_pending());
        assert_eq!((first.wakes(), second.wakes()), (0, 0));

        gate.open(7);
        assert_eq!((first.wakes(), second.wakes()), (0, 1));
        assert_eq!(first.clones(), 0, "the older waker was let go");
        let poll = Pin::new(&mut wait).poll(&mut Context::from_waker(&second_waker));
        assert_eq!(poll, Poll::Ready(7));
        assert_eq!((gate.polls(), gate.finished()), (3, true));
    }

    #[test]
    fn open_before_the_first_poll_is_ready_at_once() {
        let gate = Gate::new();
        gate.open("now");
        let (wakes, waker) = counting_waker();
        let poll = Pin::new(&mut gate.wait()).poll(&mut Context::from_waker(&waker));
        assert_eq!(poll, Poll::Ready("now"));
        assert_eq!(wakes.wakes(), 0);
    }

    #[test]
    #[should_panic(expected = "polled again after it returned Ready")]
    fn polling_after_ready_panics() {
        let gate = Gate::new();
        gate.open(());
        let mut wait = gate.wait();
        let mut cx = Context::from_waker(Waker::noop());
        let _ = Pin::new(&mut wait).poll(&mut cx);
        let _ = Pin::new(&mut wait).poll(&mut cx);
    }
}
