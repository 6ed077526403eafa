//! Turning a hang into a failure. A wrong answer must make a test fail within seconds,
//! never hang it (DESIGN.md, lab contract point 7). Two tools:
//!
//! - [`within`] and [`paused`] run the test body on a fresh thread and fail the test if
//!   it has not finished after a generous limit. The limit is a safety net, not a timing
//!   check: it only has to be longer than any correct run. It counts wall-clock time less
//!   the time the body's thread spent waiting for a CPU (Linux tells, in
//!   `/proc/…/schedstat`), up to three times the limit of wall-clock time: a test starved
//!   by a busy machine (a build, eight test binaries at once) is not failed for it, while
//!   one that spins or blocks is stopped on time.
//! - [`PollBudget`] fails deterministically once a future has been polled more times than
//!   any correct answer needs: the cure for a future that keeps waking itself, which
//!   stops tokio's paused clock so that `tokio::time::timeout` never fires. A tight
//!   budget also catches a future that is woken by a clock tick (a short sleep or an
//!   interval in a loop) instead of by the work it waits for.
//! - [`checked`] puts both [`MustWake`](crate::MustWake) and a [`PollBudget`] around a call
//!   into the learner's code.

use std::panic;
use std::pin::Pin;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::task::{Context, Poll};
use std::thread;
use std::time::{Duration, Instant};

/// The wall-clock limit [`paused`] uses.
pub const PAUSED_LIMIT: Duration = Duration::from_secs(20);

/// Runs `f` on a fresh thread and returns what it returns. If `f` panics, the test
/// fails with its panic; if it has not returned after `limit`, the test fails with
/// `why_stuck`, which should name the likely mistake.
pub fn within<T: Send + 'static>(
    limit: Duration,
    why_stuck: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    within_wall(limit, limit * 3, why_stuck, f)
}

/// Like [`within`], for a body that never waits on the operating system: a paused-time
/// runtime on one thread, whose clock jumps ahead instead of sleeping. Such a body whose
/// thread is asleep, in one sleep that has lasted `blocked` (a `std::sync::Mutex` locked
/// a second time on the thread that holds it, say), never wakes: the test fails then,
/// with `why_stuck`, instead of at `limit`. Linux only (it reads `/proc`, see
/// [`OsThread`](crate::OsThread)); elsewhere only `limit` applies.
pub fn within_unblocked<T: Send + 'static>(
    limit: Duration,
    blocked: Duration,
    why_stuck: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    watch(limit, limit * 3, Some(blocked), why_stuck, f)
}

/// [`within`] with its cap on wall-clock time given.
fn within_wall<T: Send + 'static>(
    limit: Duration,
    wall_cap: Duration,
    why_stuck: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    watch(limit, wall_cap, None, why_stuck, f)
}

/// The watchdog: `limit` of time the body's thread ran or waited (not time it waited for
/// a CPU), at most `wall_cap` of wall-clock time, and, with `blocked`, one sleep of the
/// body's thread that lasts that long.
fn watch<T: Send + 'static>(
    limit: Duration,
    wall_cap: Duration,
    blocked: Option<Duration>,
    why_stuck: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (done, result) = mpsc::channel();
    let (told, where_body) = mpsc::channel();
    // The test's timeline, if it records one, goes on on the body's thread.
    let recording = crate::timeline::carry();
    let handle = thread::Builder::new()
        .name("test body (watchdog)".into())
        .spawn(move || {
            let _recording = recording.enter();
            let _ = told.send((thread_schedstat_path(), crate::OsThread::current()));
            let _ = done.send(f());
        })
        .expect("spawn the test body's thread");
    let (schedstat, body) = where_body.recv().unwrap_or((None, None));
    let body = body.filter(|_| blocked.is_some());
    // The sleep the body's thread is in: when it was first seen, and the thread's count of
    // sleeps then (a new sleep, however short the wake-up between, starts the count over).
    let mut asleep: Option<(Instant, u64)> = None;
    let waited_at_start = schedstat
        .as_deref()
        .and_then(runqueue_wait)
        .unwrap_or_default();
    let start = Instant::now();
    loop {
        // Time the body ran or waited for something, not time it waited for a CPU; never
        // more than three times the limit of wall-clock time, whatever the machine does
        // (tests that spin share the CPUs too: each would count only its share).
        let starved = schedstat
            .as_deref()
            .and_then(runqueue_wait)
            .map_or(Duration::ZERO, |w| w.saturating_sub(waited_at_start));
        let wall = start.elapsed();
        let counted = wall.saturating_sub(starved);
        if counted >= limit || wall >= wall_cap {
            panic!(
                "still running after {counted:?} (wall-clock time, less {starved:?} spent \
                 waiting for a CPU): {why_stuck}"
            );
        }
        if let (Some(body), Some(blocked)) = (body, blocked) {
            asleep = match (body.asleep(), body.sleeps(), asleep) {
                (Some(true), Some(n), Some((since, m))) if n == m => Some((since, m)),
                (Some(true), Some(n), _) => Some((Instant::now(), n)),
                _ => None,
            };
            if let Some((since, _)) = asleep
                && since.elapsed() >= blocked
            {
                panic!(
                    "the test's thread has been blocked for {:?}, in one sleep, while its \
                     clock is paused (nothing it runs waits on the operating system): \
                     {why_stuck}",
                    since.elapsed()
                );
            }
        }
        let step = (limit - counted).min(if body.is_some() {
            Duration::from_millis(20)
        } else {
            Duration::from_millis(200)
        });
        match result.recv_timeout(step) {
            Ok(value) => return value,
            // The thread ended without a value: it panicked. Show its panic as ours.
            Err(RecvTimeoutError::Disconnected) => match handle.join() {
                Err(payload) => panic::resume_unwind(payload),
                Ok(()) => unreachable!("the thread sends before it ends"),
            },
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// This thread's `/proc/<pid>/task/<tid>/schedstat` (Linux), whose second number is the
/// time the thread has spent runnable but waiting for a CPU, in nanoseconds.
fn thread_schedstat_path() -> Option<std::path::PathBuf> {
    let me = std::fs::read_link("/proc/thread-self").ok()?;
    let path = std::path::Path::new("/proc").join(me).join("schedstat");
    path.exists().then_some(path)
}

fn runqueue_wait(schedstat: &std::path::Path) -> Option<Duration> {
    let text = std::fs::read_to_string(schedstat).ok()?;
    let ns: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Runs the future `make()` builds on a current-thread tokio runtime with paused
/// (virtual) time, like `#[tokio::test(start_paused = true)]`, on a fresh thread under
/// a wall-clock watchdog. The future is built on that thread, so it need not be `Send`.
///
/// Use it for tests a wrong answer could hang: with paused time, tokio only advances the
/// clock when nothing is ready to run, so a future that wakes itself forever freezes
/// virtual time and no `timeout` fires.
pub fn paused<F, Fut>(make: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    within(
        PAUSED_LIMIT,
        "virtual time stopped moving. A future that wakes itself again and again (busy \
         polling) keeps tokio's paused clock from advancing, so no timer or timeout can \
         fire. Return Pending only after arranging a wake-up that comes from real progress. \
         Or the test's only thread is blocked: a std Mutex locked by a second future while \
         the first holds its guard across an .await never returns on one thread.",
        move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .expect("build a paused current-thread runtime")
                .block_on(make())
        },
    )
}

/// Like [`paused`], on a [`tokio::runtime::LocalRuntime`]: paused (virtual) time, a
/// fresh thread, the same wall-clock watchdog. Inside it, the free function
/// `tokio::task::spawn_local` works without a `LocalSet`, so the future may spawn tasks
/// that are not `Send`.
pub fn paused_local<F, Fut>(make: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    within(
        PAUSED_LIMIT,
        "virtual time stopped moving, or a task waits for something that never comes. A \
         future that wakes itself again and again keeps tokio's paused clock from \
         advancing; a task that waits on a channel whose sender is still alive waits forever.",
        move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build_local(tokio::runtime::LocalOptions::default())
                .expect("build a paused local runtime")
                .block_on(make())
        },
    )
}

/// Wraps a future and panics, naming `what`, if it is polled more than `max` times:
/// a deterministic bound on busy polling.
pub struct PollBudget<F> {
    inner: F,
    max: usize,
    polls: usize,
    what: &'static str,
}

impl<F> PollBudget<F> {
    pub fn new(max: usize, what: &'static str, inner: F) -> Self {
        PollBudget {
            inner,
            max,
            polls: 0,
            what,
        }
    }

    /// Polls so far.
    pub fn polls(&self) -> usize {
        self.polls
    }
}

impl<F: Future + Unpin> Future for PollBudget<F> {
    type Output = (F::Output, usize);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.polls += 1;
        if self.polls > self.max {
            panic!(
                "{} was polled {} times, more than any correct answer needs ({}): \
                 something wakes it again and again without progress. Either busy polling \
                 (a wake-up of its own before every Pending), or a clock tick (a short sleep \
                 or an interval in a loop) standing in for the wake-ups of the work it waits \
                 for, typically because that work is polled with a waker of its own (a \
                 no-op waker) instead of the task's",
                self.what, self.polls, self.max
            );
        }
        let polls = self.polls;
        Pin::new(&mut self.inner).poll(cx).map(|out| (out, polls))
    }
}

/// Awaits `fut`, a call into the learner's code, under two checks, and returns its
/// output and how many times it was polled:
///
/// - [`MustWake`](crate::MustWake): a `Pending` that arranged no wake-up (work polled with
///   a no-op waker, say) fails at once, instead of hanging the test;
/// - a [`PollBudget`] of `max_polls`: a future woken again and again without progress
///   (busy polling, or a clock tick) fails once it is polled more often than a right
///   answer needs. A right answer is polled once, then once per wake-up of the work it
///   waits for (timers firing, messages arriving), plus tokio's cooperative yields (one
///   per 128 timers or so polled at once): set `max_polls` from those, with room to spare.
pub async fn checked<F: Future>(
    max_polls: usize,
    what: &'static str,
    fut: F,
) -> (F::Output, usize) {
    let (result, polls) =
        PollBudget::new(max_polls, what, crate::MustWake::new(Box::pin(fut))).await;
    match result {
        Ok((output, _)) => (output, polls),
        Err(why) => panic!("{what}: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_returns_the_value() {
        assert_eq!(within(Duration::from_secs(5), "never", || 42), 42);
    }

    #[test]
    #[should_panic(expected = "still running after")]
    fn within_fails_a_hang() {
        within(Duration::from_millis(50), "a hang", || {
            thread::sleep(Duration::from_secs(3600))
        })
    }

    /// A body that spins is stopped at the limit (its thread is on a CPU all along).
    #[test]
    fn within_fails_a_busy_loop() {
        use std::sync::atomic::{AtomicBool, Ordering};
        static STOP: AtomicBool = AtomicBool::new(false);
        let failed = panic::catch_unwind(|| {
            within(Duration::from_millis(100), "a busy loop", || {
                while !STOP.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        });
        STOP.store(true, Ordering::Relaxed);
        assert!(failed.is_err(), "a body that spins must be stopped");
    }

    /// A correct body on a starved machine is not failed: the time its thread waits for a
    /// CPU does not count. Linux only (elsewhere the limit is wall-clock time).
    #[cfg(target_os = "linux")]
    #[test]
    fn within_does_not_count_time_spent_waiting_for_a_cpu() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        let cores = thread::available_parallelism().map_or(2, |n| n.get());
        // The body must be starved past the limit for this to prove anything. How much CPU
        // the spinners take from it depends on the scheduler and on what else runs (it got
        // 46% of a core against 6 spinners once, beside verify's builds): with too little,
        // try again with twice as many spinners.
        let mut starved = Duration::ZERO;
        for round in 0..3 {
            let stop = Arc::new(AtomicBool::new(false));
            let spinners: Vec<_> = (0..(3 * cores) << round)
                .map(|_| {
                    let stop = Arc::clone(&stop);
                    thread::spawn(move || {
                        while !stop.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        }
                    })
                })
                .collect();
            let start = Instant::now();
            // 150 ms of the body's own CPU time: about 4 times as long in wall-clock time
            // with three spinners per core sharing the CPUs.
            let outcome = panic::catch_unwind(|| {
                // A cap far above the starvation this test causes: what it proves is the rule.
                within_wall(
                    Duration::from_millis(400),
                    Duration::from_secs(60),
                    "starved, not stuck",
                    || {
                        let me = thread_schedstat_path().expect("this Linux has schedstat");
                        let ran = || {
                            let text = std::fs::read_to_string(&me).unwrap();
                            Duration::from_nanos(
                                text.split_whitespace().next().unwrap().parse().unwrap(),
                            )
                        };
                        let at_start = ran();
                        while ran() - at_start < Duration::from_millis(150) {
                            std::hint::spin_loop();
                        }
                    },
                )
            });
            let wall = start.elapsed();
            stop.store(true, Ordering::Relaxed);
            for s in spinners {
                s.join().unwrap();
            }
            assert!(
                outcome.is_ok(),
                "the starved body was failed after {wall:?}"
            );
            if wall > Duration::from_millis(400) {
                return;
            }
            starved = wall;
        }
        panic!(
            "the body was not starved ({starved:?} with the most spinners), so this test proved nothing"
        );
    }

    /// A body blocked on a lock its own thread holds fails within a second, not at the
    /// limit (Linux; elsewhere only the limit applies, so the test skips).
    #[test]
    fn within_unblocked_fails_a_thread_blocked_on_its_own_lock() {
        if crate::OsThread::current().is_none() {
            return;
        }
        let start = Instant::now();
        let failed = panic::catch_unwind(|| {
            within_unblocked(
                Duration::from_secs(600),
                Duration::from_millis(300),
                "a lock taken twice",
                || {
                    let lock = std::sync::Mutex::new(());
                    let _held = lock.lock().unwrap();
                    // The second lock on the same thread never returns.
                    let _again = lock.lock();
                },
            )
        });
        let took = start.elapsed();
        let message = failed
            .expect_err("a blocked body must fail")
            .downcast::<String>()
            .map(|m| *m)
            .unwrap_or_default();
        assert!(message.contains("blocked for"), "{message}");
        assert!(took < Duration::from_secs(60), "failed only after {took:?}");
    }

    /// A body that works and naps now and then, each nap shorter than `blocked`, is not
    /// taken for a blocked one, however long it runs in all.
    #[test]
    fn within_unblocked_lets_short_sleeps_pass() {
        let naps = within_unblocked(
            Duration::from_secs(60),
            Duration::from_millis(300),
            "never",
            || {
                for _ in 0..10 {
                    thread::sleep(Duration::from_millis(60));
                }
                10
            },
        );
        assert_eq!(naps, 10);
    }

    #[test]
    #[should_panic(expected = "boom")]
    fn within_shows_the_body_panic() {
        within(Duration::from_secs(5), "never", || panic!("boom"))
    }

    #[test]
    fn paused_time_runs_a_not_send_future() {
        let slept = paused(|| async {
            let rc = std::rc::Rc::new(1);
            let start = tokio::time::Instant::now();
            tokio::time::sleep(Duration::from_secs(3600)).await;
            (*rc, start.elapsed())
        });
        assert_eq!(slept, (1, Duration::from_secs(3600)));
    }

    #[test]
    fn paused_local_runs_spawn_local_tasks() {
        let (slept, count) = paused_local(|| async {
            let count = std::rc::Rc::new(std::cell::Cell::new(0));
            let start = tokio::time::Instant::now();
            let tasks: Vec<_> = (0..3)
                .map(|_| {
                    let count = std::rc::Rc::clone(&count);
                    tokio::task::spawn_local(async move {
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        count.set(count.get() + 1);
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
            (start.elapsed(), count.get())
        });
        assert_eq!((slept, count), (Duration::from_secs(1), 3));
    }

    #[test]
    #[should_panic(expected = "busy polling")]
    fn a_poll_budget_catches_a_self_waking_future() {
        let spin = std::future::poll_fn(|cx| {
            cx.waker().wake_by_ref();
            Poll::<()>::Pending
        });
        block_on(PollBudget::new(100, "the spinner", Box::pin(spin)));
    }

    #[test]
    fn checked_counts_the_polls_of_a_right_answer() {
        let (slept, polls) = paused(|| async {
            checked(5, "a sleep", tokio::time::sleep(Duration::from_millis(100))).await
        });
        assert_eq!((slept, polls), ((), 2));
    }

    #[test]
    #[should_panic(expected = "clock tick")]
    fn checked_catches_a_clock_tick() {
        paused(|| async {
            let mut inner = Box::pin(tokio::time::sleep(Duration::from_millis(100)));
            let ticking = async move {
                let mut noop = Context::from_waker(std::task::Waker::noop());
                while inner.as_mut().poll(&mut noop).is_pending() {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            };
            checked(10, "a ticking wait", ticking).await
        });
    }

    #[test]
    #[should_panic(expected = "without waking")]
    fn checked_catches_a_pending_nobody_wakes() {
        paused(|| async {
            let mut inner = Box::pin(tokio::time::sleep(Duration::from_millis(100)));
            let deaf = std::future::poll_fn(move |_| {
                let mut noop = Context::from_waker(std::task::Waker::noop());
                inner.as_mut().poll(&mut noop)
            });
            checked(10, "a deaf wait", deaf).await
        });
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }
}
