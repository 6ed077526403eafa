//! Tests for lab 13, written once: labs/13-local-scope and solutions/13-local-scope both
//! run this file. The data is the caller's own (`&Vec`, `Cell`, `RefCell`, `Rc`), time is
//! virtual (`start_paused`), and every scope runs under a generous timeout, so a scope
//! that never finishes fails its test at once instead of hanging it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use local_scope::scope;
use tokio::time::{Instant, sleep, timeout};

const MS: Duration = Duration::from_millis(1);

/// Awaits `future`, or fails the test if it has not finished after 10 virtual seconds.
async fn within_10s<F: Future>(future: F) -> F::Output {
    timeout(10_000 * MS, future)
        .await
        .expect("the scope never finished: are jobs left waiting in the inbox?")
}

/// Counts the jobs that exist, started or not: +1 when made, -1 when dropped.
struct Alive(Rc<Cell<usize>>);

impl Alive {
    fn new(count: &Rc<Cell<usize>>) -> Self {
        count.set(count.get() + 1);
        Alive(Rc::clone(count))
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

/// Counts jobs running at once, and the most at any time.
#[derive(Default)]
struct Load {
    now: Cell<usize>,
    peak: Cell<usize>,
}

impl Load {
    async fn work(&self, time: Duration) {
        self.now.set(self.now.get() + 1);
        self.peak.set(self.peak.get().max(self.now.get()));
        sleep(time).await;
        self.now.set(self.now.get() - 1);
    }
}

#[tokio::test(start_paused = true)]
async fn an_empty_scope_returns_the_body_value() {
    let start = Instant::now();

    let value = within_10s(scope(async |_| 42)).await;

    assert_eq!(value, 42);
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn jobs_borrow_from_the_caller() {
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
}

// ANCHOR: concurrently
#[tokio::test(start_paused = true)]
async fn jobs_run_concurrently() {
    let load = Load::default();

    let start = Instant::now();
    within_10s(scope(async |s| {
        for _ in 0..10 {
            s.spawn(async |_| load.work(100 * MS).await);
        }
    }))
    .await;

    assert_eq!(
        start.elapsed(),
        100 * MS,
        "10 jobs of 100 ms should take 100 ms"
    );
    assert_eq!(load.peak.get(), 10, "all 10 jobs should run at once");
}
// ANCHOR_END: concurrently

#[tokio::test(start_paused = true)]
async fn the_scope_waits_for_every_job() {
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
}

// ANCHOR: nested
#[tokio::test(start_paused = true)]
async fn a_job_can_spawn_a_job() {
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
}
// ANCHOR_END: nested

#[tokio::test(start_paused = true)]
async fn nested_jobs_start_at_once() {
    // Each job spawns its child, then works: the three run side by side.
    let load = Load::default();

    let start = Instant::now();
    within_10s(scope(async |s| {
        s.spawn(async |s| {
            s.spawn(async |s| {
                s.spawn(async |_| load.work(100 * MS).await);
                load.work(100 * MS).await;
            });
            load.work(100 * MS).await;
        });
    }))
    .await;

    assert_eq!(
        start.elapsed(),
        100 * MS,
        "a job spawned by a running job should start right away, not when its parent wakes"
    );
    assert_eq!(load.peak.get(), 3);
}

#[tokio::test(start_paused = true)]
async fn nested_jobs_run_concurrently() {
    // 3 jobs of 100 ms, each spawning a child of 100 ms when it is done.
    let load = Load::default();
    let finished = Cell::new(0);

    let start = Instant::now();
    within_10s(scope(async |s| {
        for _ in 0..3 {
            s.spawn(async |s| {
                load.work(100 * MS).await;
                s.spawn(async |_| {
                    load.work(100 * MS).await;
                    finished.set(finished.get() + 1);
                });
                finished.set(finished.get() + 1);
            });
        }
    }))
    .await;

    assert_eq!(finished.get(), 6);
    assert_eq!(start.elapsed(), 200 * MS, "two rounds of 100 ms, not six");
    assert_eq!(load.peak.get(), 3);
}

// ANCHOR: dropped
#[tokio::test(start_paused = true)]
async fn dropping_the_scope_drops_every_job() {
    let alive = Rc::new(Cell::new(0));
    let finished = Cell::new(0);

    let result = timeout(
        50 * MS,
        scope(async |s| {
            for _ in 0..3 {
                let guard = Alive::new(&alive);
                s.spawn(async |s| {
                    let _guard = guard;
                    let inner = Alive::new(&alive);
                    s.spawn(async |_| {
                        let _inner = inner;
                        sleep(1000 * MS).await;
                        finished.set(finished.get() + 1);
                    });
                    sleep(1000 * MS).await;
                    finished.set(finished.get() + 1);
                });
            }
        }),
    )
    .await;

    assert!(
        result.is_err(),
        "the scope should still be running at 50 ms"
    );
    assert_eq!(alive.get(), 0, "no job may outlive the scope future");
    sleep(5000 * MS).await;
    assert_eq!(
        finished.get(),
        0,
        "no job may run after the scope is dropped"
    );
}
// ANCHOR_END: dropped
