//! Tests for lab 13, written once: labs/13-local-scope and solutions/13-local-scope both
//! run this file. The data is the caller's own (`&Vec`, `Cell`, `RefCell`, and a `Gauge`
//! from lab-support), and time is virtual (tokio's paused clock). Every scope runs
//! under three nets, so a wrong `run_jobs` fails its test at once instead of hanging it:
//! a poll budget (busy polling), a check that `Pending` always comes with a way to be
//! woken, and a generous timeout in virtual time (a job that is never run again).
//! Each test records its timeline in virtual time (the scope's polls, its jobs' waits,
//! the wake-ups of the scope's task), which `cargo labs check 13` shows when the test
//! fails and `cargo labs trace 13 TEST` shows whole.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use lab_support::{Gauge, MustWake, PollBudget, Recording, Traced, traced};
use local_scope::{Scope, scope};
use tokio::time::{Instant, timeout};

const MS: Duration = Duration::from_millis(1);

/// lab-support's `paused`, recording the test's timeline in virtual time.
fn paused<F, Fut>(make: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    let _timeline = Recording::start().virtual_time();
    lab_support::paused(make)
}

/// tokio's `sleep`, in lab-support's `Traced`, which records its polls on the test's
/// timeline ("sleep a", "sleep b", …) and changes nothing it does.
fn sleep(duration: Duration) -> Traced<tokio::time::Sleep> {
    traced("sleep", tokio::time::sleep(duration))
}

/// The nets around a scope future: a check that every `Pending` comes with a way to be
/// woken, and a poll budget. A right `run_jobs` is polled once, then about once each
/// time jobs wake it (at most 10 times in these tests, 1000 jobs included): the budget
/// is 40. Only a scope woken without progress goes beyond it: one that wakes itself
/// (busy polling, which also freezes the paused clock), or one that a clock tick wakes
/// every millisecond instead of its jobs' own wake-ups.
async fn watched<F: Future>(scope: F) -> F::Output {
    watched_within(40, scope).await
}

/// `watched`, with a poll budget of its own.
async fn watched_within<F: Future>(max_polls: usize, scope: F) -> F::Output {
    let checked = MustWake::new(Box::pin(scope));
    let (result, _polls) = PollBudget::new(max_polls, "the scope future", checked).await;
    match result {
        Ok((value, _polls)) => value,
        Err(why) => panic!("the scope future, {why}"),
    }
}

/// Awaits the scope, or fails the test if it has not finished after 10 virtual seconds.
async fn within_10s<F: Future>(scope: F) -> F::Output {
    within_10s_and(40, scope).await
}

/// `within_10s`, with a poll budget of its own.
async fn within_10s_and<F: Future>(max_polls: usize, scope: F) -> F::Output {
    timeout(10_000 * MS, watched_within(max_polls, scope))
        .await
        .expect(
            "the scope never finished: a job left in the inbox, or a job that was woken \
         and never polled again?",
        )
}

/// Counts jobs at work: now, the most at once, and how many ever started.
/// (Its wait is recorded as "job a", "job b", ….)
async fn work(jobs: &Gauge, time: Duration) {
    let _working = jobs.enter();
    traced("job", tokio::time::sleep(time)).await;
}

#[test]
fn an_empty_scope_returns_the_body_value() {
    paused(|| async {
        let start = Instant::now();

        let value = within_10s(scope(async |_| 42)).await;

        assert_eq!(value, 42);
        assert_eq!(start.elapsed(), Duration::ZERO);
    });
}

#[test]
fn jobs_borrow_from_the_caller() {
    paused(|| async {
        let names = vec![
            "ada".to_string(),
            "grace".to_string(),
            "barbara".to_string(),
        ];
        let log = &RefCell::new(Vec::new());

        let count = within_10s(scope(async |s| {
            for name in &names {
                s.spawn(async move |_| {
                    sleep(10 * MS).await;
                    log.borrow_mut().push(format!("hello {name}"));
                });
            }
            names.len()
        }))
        .await;

        assert_eq!(count, 3);
        let mut log = log.take();
        log.sort();
        assert_eq!(log, ["hello ada", "hello barbara", "hello grace"]);
        assert_eq!(names.len(), 3, "the scope only borrowed `names`");
    });
}

// ANCHOR: concurrently
#[test]
fn jobs_run_concurrently() {
    paused(|| async {
        let jobs = Gauge::new();

        let start = Instant::now();
        within_10s(scope(async |s| {
            for _ in 0..1000 {
                s.spawn(async |_| work(&jobs, 100 * MS).await);
            }
        }))
        .await;

        assert_eq!(
            start.elapsed(),
            100 * MS,
            "1000 jobs of 100 ms should take 100 ms"
        );
        assert_eq!(jobs.peak(), 1000, "all 1000 jobs should run at once");
    });
}
// ANCHOR_END: concurrently

#[test]
fn the_scope_waits_for_every_job() {
    paused(|| async {
        let done = Cell::new(0);

        let start = Instant::now();
        let value = within_10s(scope(async |s| {
            s.spawn(async |_| {
                sleep(100 * MS).await;
                done.set(done.get() + 1);
            });
            sleep(30 * MS).await;
            s.spawn(async |_| {
                sleep(100 * MS).await;
                done.set(done.get() + 1);
            });
            "the body's value"
        }))
        .await;

        assert_eq!(value, "the body's value");
        assert_eq!(
            done.get(),
            2,
            "the scope must not return before its jobs end"
        );
        assert_eq!(
            start.elapsed(),
            130 * MS,
            "the second job starts at 30 ms and takes 100 ms"
        );
    });
}

// ANCHOR: nested
#[test]
fn a_job_can_spawn_a_job() {
    paused(|| async {
        // The case moro-local 0.4 panics on: `spawn` called from inside a running job.
        let ran = RefCell::new(Vec::new());

        within_10s(scope(async |s| {
            s.spawn(async |s| {
                ran.borrow_mut().push("child");
                s.spawn(async |s| {
                    ran.borrow_mut().push("grandchild");
                    s.spawn(async |_| {
                        sleep(100 * MS).await;
                        ran.borrow_mut().push("great-grandchild");
                    });
                });
            });
        }))
        .await;

        assert_eq!(*ran.borrow(), ["child", "grandchild", "great-grandchild"]);
    });
}
// ANCHOR_END: nested

#[test]
fn nested_jobs_start_at_once() {
    paused(|| async {
        // Each job spawns its child, then works: the three run side by side.
        let jobs = Gauge::new();

        let start = Instant::now();
        within_10s(scope(async |s| {
            s.spawn(async |s| {
                s.spawn(async |s| {
                    s.spawn(async |_| work(&jobs, 100 * MS).await);
                    work(&jobs, 100 * MS).await;
                });
                work(&jobs, 100 * MS).await;
            });
        }))
        .await;

        assert_eq!(
            start.elapsed(),
            100 * MS,
            "a job spawned by a running job should start right away, not when its parent wakes"
        );
        assert_eq!(jobs.peak(), 3);
    });
}

/// Spawns a chain of `links` jobs: each spawns the next, then works for 100 ms.
fn chain<'env>(s: &Scope<'env>, links: usize, jobs: &'env Gauge) {
    if links > 0 {
        s.spawn(async move |s| {
            chain(s, links - 1, jobs);
            work(jobs, 100 * MS).await;
        });
    }
}

#[test]
fn a_long_chain_of_jobs_starts_at_once() {
    paused(|| async {
        // 100 jobs, each spawned by the one before it while that one runs: deeper than
        // any fixed number of rounds through the inbox.
        let jobs = Gauge::new();

        let start = Instant::now();
        // A scope may take a poll per link to start them (a wake-up of its own while its
        // inbox is not empty, say), hence a budget of 200 polls here.
        within_10s_and(200, scope(async |s| chain(s, 100, &jobs))).await;

        assert_eq!(
            (jobs.total(), jobs.peak()),
            (100, 100),
            "(jobs started, most at once): every job of the chain should start at once, \
             each as soon as its parent spawns it"
        );
        assert_eq!(
            start.elapsed(),
            100 * MS,
            "a chain of 100 jobs, each spawned at once by its parent, takes 100 ms: \
             run_jobs must go round until the inbox stays empty, however many rounds \
             that takes, not a fixed number of times"
        );
    });
}

#[test]
fn nested_jobs_run_concurrently() {
    paused(|| async {
        // 3 jobs of 100 ms, each spawning a child of 100 ms when it is done.
        let jobs = Gauge::new();
        let finished = Cell::new(0);

        let start = Instant::now();
        within_10s(scope(async |s| {
            for _ in 0..3 {
                s.spawn(async |s| {
                    work(&jobs, 100 * MS).await;
                    s.spawn(async |_| {
                        work(&jobs, 100 * MS).await;
                        finished.set(finished.get() + 1);
                    });
                    finished.set(finished.get() + 1);
                });
            }
        }))
        .await;

        assert_eq!(finished.get(), 6);
        assert_eq!(start.elapsed(), 200 * MS, "two rounds of 100 ms, not six");
        assert_eq!(jobs.peak(), 3);
    });
}

// ANCHOR: dropped
#[test]
fn dropping_the_scope_drops_every_job() {
    paused(|| async {
        let alive = Gauge::new();
        let finished = Cell::new(0);

        let result = timeout(
            50 * MS,
            watched(scope(async |s| {
                for _ in 0..3 {
                    let guard = alive.enter();
                    s.spawn(async |s| {
                        let _guard = guard;
                        let inner = alive.enter();
                        s.spawn(async |_| {
                            let _inner = inner;
                            sleep(1000 * MS).await;
                            finished.set(finished.get() + 1);
                        });
                        sleep(1000 * MS).await;
                        finished.set(finished.get() + 1);
                    });
                }
            })),
        )
        .await;

        assert!(
            result.is_err(),
            "the scope should still be running at 50 ms"
        );
        assert_eq!(alive.total(), 6, "three jobs, each with a child, were made");
        assert_eq!(alive.now(), 0, "no job may outlive the scope future");
        sleep(5000 * MS).await;
        assert_eq!(
            finished.get(),
            0,
            "no job may run after the scope is dropped"
        );
    });
}
// ANCHOR_END: dropped
