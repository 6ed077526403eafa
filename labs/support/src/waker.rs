//! Wakers for tests that poll by hand.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use crate::timeline::{self, Poller, Traceable, Tracer, Tracked};

// ANCHOR: counting_waker
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
// ANCHOR_END: counting_waker

/// A task played by the test: it polls futures by hand with a fresh [`CountingWaker`],
/// so the test can see which wake-ups reach the task. While a timeline is recorded, its
/// polls and its waker's uses are in it ("task 2 polls Join with task 2's waker").
pub struct TestTask {
    counter: Arc<CountingWaker>,
    waker: Waker,
    /// The recording, and this task's number in it.
    recorded: Option<(timeline::Handle, u16)>,
}

impl Default for TestTask {
    fn default() -> Self {
        match timeline::current() {
            Some(handle) => {
                let task = handle.task();
                let (counter, waker) = timeline::counted(Tracer::task(handle.clone(), task));
                TestTask {
                    counter,
                    waker,
                    recorded: Some((handle, task)),
                }
            }
            None => {
                let (counter, waker) = counting_waker();
                TestTask {
                    counter,
                    waker,
                    recorded: None,
                }
            }
        }
    }
}

impl TestTask {
    pub fn new() -> Self {
        Self::default()
    }

    /// Polls `future` once with this task's waker.
    pub fn poll<F: Future + Unpin + ?Sized>(&self, future: &mut F) -> Poll<F::Output> {
        let mut cx = Context::from_waker(&self.waker);
        let Some((handle, task)) = &self.recorded else {
            return Pin::new(future).poll(&mut cx);
        };
        let name = timeline::short_name(std::any::type_name::<F>());
        let mut tracked = Tracked::transient(handle.clone(), name);
        let guard = tracked.begin(Poller::Task(*task), &self.waker);
        let result = Pin::new(future).poll(&mut cx);
        guard.end(&result);
        result
    }

    /// Wake-ups of this task's waker so far.
    pub fn wakes(&self) -> usize {
        self.counter.wakes()
    }

    /// The waker this task polls with.
    pub fn waker(&self) -> &Waker {
        &self.waker
    }
}

/// Wraps a future for a real executor so that a broken future fails the test instead of
/// hanging it: if the inner future answers `Pending` without waking the waker it was
/// given (or a clone of it) before returning, and without keeping a clone for later,
/// nothing would ever poll it again. `MustWake` relays the executor's waker and reports
/// that case as an error naming the poll. A future that keeps a clone and never uses it
/// still hangs the executor: if the future waits for nothing outside itself, use
/// [`MustWake::woken_in_poll`]; otherwise run the test under [`crate::within`].
pub struct MustWake<F> {
    inner: F,
    polls: usize,
    /// Only a wake during the poll counts (see [`MustWake::woken_in_poll`]).
    strict: bool,
    /// While a timeline is recorded: the inner future's polls, and this task's number.
    recorded: Option<(Tracked, u16)>,
}

impl<F> MustWake<F> {
    pub fn new(inner: F) -> Self {
        MustWake {
            inner,
            polls: 0,
            strict: false,
            recorded: timeline::current().map(|handle| {
                let task = handle.task();
                let name = timeline::short_name(std::any::type_name::<F>());
                (Tracked::new(handle, name), task)
            }),
        }
    }

    /// For a future that waits for nothing outside itself (it counts down, or yields):
    /// every `Pending` must wake the waker before `poll` returns. Keeping a clone "for
    /// later" is not accepted, because nothing else would ever use it: without this,
    /// such a future would hang the executor instead of failing.
    pub fn woken_in_poll(inner: F) -> Self {
        MustWake {
            strict: true,
            ..MustWake::new(inner)
        }
    }
}

struct Relay {
    to: Waker,
    woken: AtomicBool,
    /// Recorded as the task's waker, while a timeline is.
    tracer: Option<Tracer>,
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

impl Traceable for Relay {
    fn tracer(&self) -> Option<&Tracer> {
        self.tracer.as_ref()
    }

    fn on_wake(&self) {
        self.woken.store(true, Ordering::SeqCst);
        self.to.wake_by_ref();
    }
}

impl<F: Future + Unpin> Future for MustWake<F> {
    /// The inner output and how many times it was polled, or why it would hang.
    type Output = Result<(F::Output, usize), String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.polls += 1;
        let this = &mut *self;
        let relay = Arc::new(Relay {
            to: cx.waker().clone(),
            woken: AtomicBool::new(false),
            tracer: this
                .recorded
                .as_ref()
                .map(|(tracked, task)| Tracer::task(tracked.handle().clone(), *task)),
        });
        let waker = match &relay.tracer {
            Some(_) => timeline::traced_waker(Arc::clone(&relay), 0),
            None => Waker::from(Arc::clone(&relay)),
        };
        let result = match this.recorded.as_mut() {
            Some((tracked, _)) => {
                let guard = tracked.begin(Poller::Executor, &waker);
                let result = Pin::new(&mut this.inner).poll(&mut Context::from_waker(&waker));
                drop(waker);
                guard.end(&result);
                result
            }
            None => {
                let result = Pin::new(&mut this.inner).poll(&mut Context::from_waker(&waker));
                drop(waker);
                result
            }
        };
        match result {
            Poll::Ready(output) => Poll::Ready(Ok((output, self.polls))),
            // Woken already, or a clone is kept by someone who may wake it later.
            Poll::Pending if relay.woken.load(Ordering::SeqCst) => Poll::Pending,
            Poll::Pending if !self.strict && Arc::strong_count(&relay) > 1 => Poll::Pending,
            Poll::Pending if self.strict => Poll::Ready(Err(format!(
                "poll {} returned Pending without waking the waker it was given before \
                 returning. Nothing else will ever wake this future, so an executor would \
                 wait for that wake-up forever",
                self.polls
            ))),
            Poll::Pending => Poll::Ready(Err(format!(
                "poll {} returned Pending without waking the waker it was given or keeping \
                 it for later: an executor would wait for that wake-up forever",
                self.polls
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::future::poll_fn;

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_test_task_sees_the_wakes_of_what_it_polls() {
        let task = TestTask::new();
        let mut once = false;
        let mut yielder = poll_fn(|cx| {
            if once {
                return Poll::Ready(7);
            }
            once = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        });
        assert!(task.poll(&mut yielder).is_pending());
        assert_eq!(task.wakes(), 1);
        assert_eq!(task.poll(&mut yielder), Poll::Ready(7));
        assert!(task.waker().will_wake(task.waker()));
    }

    #[test]
    fn counts_wakes_and_clones() {
        let (counter, waker) = counting_waker();
        let kept = waker.clone();
        waker.wake_by_ref();
        kept.wake();
        assert_eq!((counter.wakes(), counter.clones()), (2, 0));
    }

    #[test]
    fn must_wake_passes_a_future_that_wakes_itself() {
        let mut left = 3;
        let spin = poll_fn(|cx| {
            if left == 0 {
                return Poll::Ready("done");
            }
            left -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        });
        let result = block_on(MustWake::woken_in_poll(Box::pin(spin)));
        assert_eq!(result, Ok(("done", 4)));
    }

    #[test]
    fn must_wake_fails_a_future_that_forgets_to_wake() {
        let silent = poll_fn(|_| Poll::<()>::Pending);
        let result = block_on(MustWake::new(Box::pin(silent)));
        assert!(result.unwrap_err().contains("poll 1 returned Pending"));
    }

    #[test]
    fn only_the_strict_guard_fails_a_future_that_keeps_its_waker_unused() {
        let kept = RefCell::new(None);
        let mut keeper = Box::pin(poll_fn(|cx| {
            *kept.borrow_mut() = Some(cx.waker().clone());
            Poll::<()>::Pending
        }));
        // The lenient guard trusts a kept clone (it may be woken later), so poll it by
        // hand: it answers Pending rather than an error.
        let mut lenient = MustWake::new(keeper.as_mut());
        let poll = Pin::new(&mut lenient).poll(&mut Context::from_waker(Waker::noop()));
        assert!(poll.is_pending());
        let result = block_on(MustWake::woken_in_poll(keeper.as_mut()));
        assert!(result.unwrap_err().contains("before returning"));
    }
}
