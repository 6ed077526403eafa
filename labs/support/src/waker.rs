//! Wakers for tests that poll by hand.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// A waker that counts how often it is woken, and how many clones of it are alive.
#[derive(Default)]
pub struct CountingWaker {
    wakes: AtomicUsize,
}

impl CountingWaker {
    /// Wake-ups so far (`wake` and `wake_by_ref` both count).
    pub fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }

    /// Live handles to this waker beyond the one the test holds: a future that keeps a
    /// clone of an old waker shows up here.
    pub fn clones(self: &Arc<Self>) -> usize {
        // The test's own `Arc` and its `Waker` are two strong counts.
        Arc::strong_count(self).saturating_sub(2)
    }
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
pub fn counting_waker() -> (Arc<CountingWaker>, Waker) {
    let counter = Arc::new(CountingWaker::default());
    let waker = Waker::from(Arc::clone(&counter));
    (counter, waker)
}

/// Wraps a future for a real executor so that a broken future fails the test instead of
/// hanging it: if the inner future answers `Pending` without waking the waker it was
/// given (or a clone of it) before returning, and without keeping a clone for later,
/// nothing would ever poll it again. `MustWake` relays the executor's waker and reports
/// that case as an error naming the poll.
pub struct MustWake<F> {
    inner: F,
    polls: usize,
}

impl<F> MustWake<F> {
    pub fn new(inner: F) -> Self {
        MustWake { inner, polls: 0 }
    }
}

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
    /// The inner output and how many times it was polled, or why it would hang.
    type Output = Result<(F::Output, usize), String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.polls += 1;
        let relay = Arc::new(Relay {
            to: cx.waker().clone(),
            woken: AtomicBool::new(false),
        });
        let waker = Waker::from(Arc::clone(&relay));
        let result = Pin::new(&mut self.inner).poll(&mut Context::from_waker(&waker));
        drop(waker);
        match result {
            Poll::Ready(output) => Poll::Ready(Ok((output, self.polls))),
            // Woken already, or a clone is kept by someone who may wake it later.
            Poll::Pending
                if relay.woken.load(Ordering::SeqCst) || Arc::strong_count(&relay) > 1 =>
            {
                Poll::Pending
            }
            Poll::Pending => Poll::Ready(Err(format!(
                "poll {} returned Pending without waking the waker it was given or keeping \
                 it for later: an executor would wait for that wake-up forever",
                self.polls
            ))),
        }
    }
}
