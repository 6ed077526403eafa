//! Tests for lab 24, written once: labs/24-timers and solutions/24-timers both run this
//! file. Every test runs in tokio's paused (virtual) time, so "fired at 20 ms" and
//! "returned at 21 ms" are exact. The handler is a fake that borrows from the test and
//! keeps its state in `Rc`, `Cell` and `RefCell`. Each run is under two watchdogs: a poll
//! budget (a busy loop fails at once) and a wall-clock limit (a thread blocked on a lock
//! fails as soon as it has been blocked for a second, instead of hanging).

use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use lab_support::{PollBudget, within_unblocked};
use timers::{Handler, Report, Timer, fire_all, tick};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);
const SECOND: Duration = Duration::from_secs(1);

// ANCHOR: handler
/// A fake handler: records who was called and when, then "works" for a while.
struct Recorder<'a> {
    start: Instant,
    /// (id, ms since the start) of every call, in call order. Borrowed from the test.
    calls: &'a RefCell<Vec<(u32, u64)>>,
    /// How long the handler for `id` takes.
    work: fn(u32) -> Duration,
    /// How long the handler for `id` keeps the thread busy first, as CPU work would: in
    /// paused time the clock moves on while nothing else runs (zero in most tests).
    hog: fn(u32) -> Duration,
    running: Rc<Cell<usize>>,
    peak: Cell<usize>,
    finished: Cell<usize>,
}

impl Handler for Recorder<'_> {
    async fn on_fire(&self, id: u32) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.calls.borrow_mut().push((id, ms));
        let _running = Running::enter(&self.running, &self.peak);
        let hog = (self.hog)(id);
        if !hog.is_zero() {
            tokio::time::advance(hog).await;
        }
        sleep((self.work)(id)).await;
        self.finished.set(self.finished.get() + 1);
    }
}
// ANCHOR_END: handler

/// Counts a handler as running until it is dropped.
struct Running(Rc<Cell<usize>>);

impl Running {
    fn enter(running: &Rc<Cell<usize>>, peak: &Cell<usize>) -> Running {
        running.set(running.get() + 1);
        peak.set(peak.get().max(running.get()));
        Running(Rc::clone(running))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

/// What a run left behind, as plain data (the run itself happens on the watchdog's thread).
#[derive(Debug)]
struct Outcome {
    /// (id, ms) of every handler call, in call order.
    calls: Vec<(u32, u64)>,
    /// (id, deadline ms, fired ms) of the report, in its order.
    report: Vec<(u32, u64, u64)>,
    max_lateness: Duration,
    mean_lateness: Duration,
    /// When the function returned, ms after the start.
    returned_at: u64,
    peak: usize,
    finished: usize,
}

const STUCK: &str = "the runtime's only thread is stuck. Blocked: a std MutexGuard held \
    across an .await makes the next lock() wait forever, since on one thread nobody else can \
    release it (cargo clippy names the line: clippy::await_holding_lock). Or busy: a loop that \
    checks the clock instead of awaiting a timer never lets paused time move. Or a blocking \
    wait (std::thread::sleep, even inside spawn_blocking): paused time stands still while it \
    runs, so the deadline it waits for never comes.";

/// Runs `what` (fire_all or tick, given the handler) in paused time on a fresh
/// current-thread runtime, under a poll budget and a wall-clock watchdog: 10 s, or one
/// second in which the thread is blocked (nothing here waits on the OS: the clock is paused).
fn run(deadlines_ms: Vec<u64>, work: fn(u32) -> Duration, max_polls: usize, what: What) -> Outcome {
    run_hogging(deadlines_ms, |_| Duration::ZERO, work, max_polls, what)
}

/// `run`, with handlers that keep the thread busy for `hog(id)` before they await.
fn run_hogging(
    deadlines_ms: Vec<u64>,
    hog: fn(u32) -> Duration,
    work: fn(u32) -> Duration,
    max_polls: usize,
    what: What,
) -> Outcome {
    within_unblocked(10 * SECOND, SECOND, STUCK, move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(async move {
            let start = Instant::now();
            let calls = RefCell::new(Vec::new());
            let handler = Recorder {
                start,
                calls: &calls,
                work,
                hog,
                running: Rc::new(Cell::new(0)),
                peak: Cell::new(0),
                finished: Cell::new(0),
            };
            let timers: Vec<Timer> = deadlines_ms
                .iter()
                .enumerate()
                .map(|(id, &ms)| Timer {
                    id: id as u32,
                    deadline: start + Duration::from_millis(ms),
                })
                .collect();
            let run: Pin<Box<dyn Future<Output = Report> + '_>> = match what {
                What::FireAll => Box::pin(fire_all(&timers, &handler)),
                What::Tick { period, count } => Box::pin(tick(period, count, &handler)),
            };
            let (report, _polls) = PollBudget::new(max_polls, "the timers' future", run).await;
            let ms = |at: Instant| at.duration_since(start).as_millis() as u64;
            Outcome {
                returned_at: ms(Instant::now()),
                report: report
                    .fired
                    .iter()
                    .map(|f| (f.id, ms(f.deadline), ms(f.at)))
                    .collect(),
                max_lateness: report.max_lateness(),
                mean_lateness: report.mean_lateness(),
                peak: handler.peak.get(),
                finished: handler.finished.get(),
                calls: calls.take(),
            }
        })
    })
}

/// Which function a test runs.
#[derive(Clone, Copy)]
enum What {
    /// `fire_all` with a timer per deadline (ids 0, 1, …).
    FireAll,
    /// `tick(period, count, …)`.
    Tick { period: Duration, count: u32 },
}

/// `actual == expected`, or a failure that shows the first difference (the lists are long).
fn same<T: PartialEq + std::fmt::Debug>(actual: &[T], expected: &[T], what: &str) {
    if let Some(i) =
        (0..actual.len().max(expected.len())).find(|&i| actual.get(i) != expected.get(i))
    {
        panic!(
            "{what}: they differ first at index {i}: got {:?}, expected {:?} ({} items, expected {})",
            actual.get(i),
            expected.get(i),
            actual.len(),
            expected.len()
        );
    }
}

/// The report lists the calls, in call order, each at its own time.
fn report_matches_calls(out: &Outcome) {
    let from_report: Vec<(u32, u64)> = out.report.iter().map(|&(id, _, at)| (id, at)).collect();
    same(
        &from_report,
        &out.calls,
        "the report must list each firing (id, ms) when its handler was called, in call order",
    );
}

// ANCHOR: ten_thousand
#[test]
fn ten_thousand_timers_fire_at_twenty_ms() {
    // Chapter 24's experiment: 10,000 timeouts of 20 ms on one thread; each handler takes 1 ms.
    let out = run(vec![20; 10_000], |_| MS, 1_000, What::FireAll);
    assert_eq!(out.calls.len(), 10_000, "every handler is called once");
    let late: Vec<_> = out
        .calls
        .iter()
        .filter(|&&(_, ms)| ms != 20)
        .take(3)
        .collect();
    assert!(
        late.is_empty(),
        "every handler is called at 20 ms; some were not: {late:?} (id, ms)"
    );
    report_matches_calls(&out);
    assert_eq!(out.max_lateness, Duration::ZERO);
    assert_eq!(
        out.finished, 10_000,
        "fire_all returns after every handler finished"
    );
    assert_eq!(
        out.returned_at, 21,
        "the handlers run at the same time: 20 ms + 1 ms"
    );
}
// ANCHOR_END: ten_thousand

#[test]
fn timers_fire_in_deadline_order() {
    // Out of order, with a tie (ids 1 and 5 at 5 ms), none a multiple of the others.
    let deadlines = vec![37, 5, 20, 12, 61, 5, 29, 44];
    let out = run(
        deadlines.clone(),
        |id| (1 + (id * 7) % 11) * MS,
        1_000,
        What::FireAll,
    );
    let mut ids: Vec<u32> = out.calls.iter().map(|&(id, _)| id).collect();
    for &(id, ms) in &out.calls {
        assert_eq!(
            ms, deadlines[id as usize],
            "timer {id} must fire at its deadline"
        );
    }
    let order: Vec<u64> = out.calls.iter().map(|&(_, ms)| ms).collect();
    assert!(
        order.is_sorted(),
        "handlers called in deadline order, got {order:?}"
    );
    ids.sort();
    assert_eq!(ids, (0..8).collect::<Vec<_>>(), "every timer fires once");
    report_matches_calls(&out);
    assert_eq!(out.mean_lateness, Duration::ZERO);
    // The last to finish: id 4 at 61 ms + (1 + 28 % 11) ms = 68 ms.
    assert_eq!(out.returned_at, 68);
}

#[test]
fn handlers_that_overlap_all_fire_on_time() {
    // A timer every 10 ms from 7 ms on; each handler takes 33 ms, so four run at once.
    let deadlines: Vec<u64> = (0..10).map(|i| 7 + 10 * i).collect();
    let out = run(deadlines.clone(), |_| 33 * MS, 1_000, What::FireAll);
    let expected: Vec<(u32, u64)> = deadlines
        .iter()
        .enumerate()
        .map(|(i, &ms)| (i as u32, ms))
        .collect();
    assert_eq!(
        out.calls, expected,
        "each handler is called at its timer's deadline"
    );
    report_matches_calls(&out);
    assert_eq!(
        out.peak, 4,
        "handlers overlap: a slow one does not hold back the next timer"
    );
    assert_eq!(out.returned_at, 97 + 33);
}

#[test]
fn nothing_to_fire_returns_at_once() {
    let out = run(vec![], |_| MS, 10, What::FireAll);
    assert!(out.calls.is_empty() && out.report.is_empty());
    assert_eq!(out.returned_at, 0);
    let out = run(
        vec![],
        |_| MS,
        10,
        What::Tick {
            period: 20 * MS,
            count: 0,
        },
    );
    assert!(out.calls.is_empty() && out.report.is_empty());
    assert_eq!(out.returned_at, 0);
}

#[test]
fn ticks_fire_on_the_period_not_after_the_handler() {
    // 50 ticks of 20 ms; each handler takes 7 ms, less than a period.
    let out = run(
        vec![],
        |_| 7 * MS,
        1_000,
        What::Tick {
            period: 20 * MS,
            count: 50,
        },
    );
    let expected: Vec<(u32, u64)> = (1..=50).map(|k| (k, 20 * k as u64)).collect();
    same(
        &out.calls,
        &expected,
        "(tick, ms) of each handler call: tick k fires at k x 20 ms",
    );
    let report: Vec<(u32, u64, u64)> = (1..=50)
        .map(|k| (k, 20 * k as u64, 20 * k as u64))
        .collect();
    same(
        &out.report,
        &report,
        "the report: (tick, deadline ms, fired ms)",
    );
    assert_eq!(out.peak, 1, "one tick at a time");
    assert_eq!(out.returned_at, 1007);
}

// ANCHOR: late_tick
#[test]
fn a_tick_that_runs_late_does_not_shift_the_schedule() {
    // Tick 3's handler takes 45 ms, more than two periods; the others take 7 ms.
    let work = |k| if k == 3 { 45 * MS } else { 7 * MS };
    let out = run(
        vec![],
        work,
        1_000,
        What::Tick {
            period: 20 * MS,
            count: 8,
        },
    );
    // Ticks 4 and 5 are late (due at 80 and 100 ms, fired at 105 and 112 ms, each as soon
    // as the one before finished); tick 6 is back on the schedule.
    let expected = vec![
        (1, 20),
        (2, 40),
        (3, 60),
        (4, 105),
        (5, 112),
        (6, 120),
        (7, 140),
        (8, 160),
    ];
    assert_eq!(out.calls, expected, "(tick, ms) of each handler call");
    let deadlines: Vec<u64> = out.report.iter().map(|&(_, due, _)| due).collect();
    assert_eq!(deadlines, (1..=8).map(|k| 20 * k).collect::<Vec<u64>>());
    report_matches_calls(&out);
    assert_eq!(out.max_lateness, 25 * MS);
    assert_eq!(out.peak, 1, "one tick at a time");
    assert_eq!(out.returned_at, 167);
}
// ANCHOR_END: late_tick

// ANCHOR: late_timer
#[test]
fn a_timer_that_cannot_fire_on_time_is_reported_late() {
    // Timer 0's handler keeps the thread busy for 6 ms (5 ms to 11 ms): timers 1 and 2,
    // due at 7 and 8 ms, can only fire at 11 ms. The report must say so.
    let hog = |id| if id == 0 { 6 * MS } else { Duration::ZERO };
    let out = run_hogging(vec![5, 7, 8, 30], hog, |_| MS, 1_000, What::FireAll);
    let mut calls = out.calls.clone();
    calls.sort();
    assert_eq!(
        calls,
        [(0, 5), (1, 11), (2, 11), (3, 30)],
        "(id, ms) of each call"
    );
    let fired: Vec<(u32, u64)> = out.report.iter().map(|&(id, _, at)| (id, at)).collect();
    same(
        &fired,
        &out.calls,
        "the report must record when each handler was really called (Instant::now() as it \
         fires), not when it was due: a timer that fires late must show up late",
    );
    assert_eq!(out.max_lateness, 4 * MS);
    assert_eq!(out.mean_lateness, 7 * MS / 4);
}
// ANCHOR_END: late_timer

#[test]
fn a_far_deadline_costs_a_few_polls() {
    // Seconds away, not milliseconds: a correct answer sleeps until each deadline, and
    // its future is polled a handful of times. A loop that wakes every millisecond to
    // check the clock is polled thousands of times, and fails its poll budget.
    let out = run(vec![3_000, 9_000], |_| MS, 50, What::FireAll);
    assert_eq!(out.calls, [(0, 3_000), (1, 9_000)], "(id, ms) of each call");
    assert_eq!(out.returned_at, 9_001);
    let out = run(
        vec![],
        |_| MS,
        50,
        What::Tick {
            period: 1_000 * MS,
            count: 3,
        },
    );
    assert_eq!(
        out.calls,
        [(1, 1_000), (2, 2_000), (3, 3_000)],
        "(tick, ms) of each handler call"
    );
    assert_eq!(out.returned_at, 3_001);
}
