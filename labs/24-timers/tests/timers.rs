//! Tests for lab 24, written once: labs/24-timers and solutions/24-timers both run this
//! file. Every test runs in tokio's paused (virtual) time, so "fired at 20 ms" and
//! "returned at 21 ms" are exact. The handler is a fake that borrows from the test and
//! keeps its state in `Rc`, `Cell` and `RefCell`. Each run is under two watchdogs: a poll
//! budget (a busy loop fails at once) and a wall-clock limit (a thread blocked on a lock
//! fails as soon as it has been blocked for a second, instead of hanging). The test binary's allocator counts the bytes each
//! thread asks for.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use lab_support::byte_alloc::{ByteCountingAllocator, allocated_bytes};
use lab_support::{PollBudget, within_unblocked};
use timers::{Handler, Report, Timer, fire_all, tick};
use tokio::time::{Instant, sleep};

// Counts the bytes each thread allocates: a periodic timer told to run "for ever" must not
// reserve room for every tick up front.
#[global_allocator]
static ALLOCATOR: ByteCountingAllocator = ByteCountingAllocator;

const MS: Duration = Duration::from_millis(1);
const SECOND: Duration = Duration::from_secs(1);

// ANCHOR: handler
/// A fake handler: records who was called and when, then "works" for a while.
struct Recorder<'a> {
    start: Instant,
    /// (id, time since the start) of every call, in call order. Borrowed from the test.
    calls: &'a RefCell<Vec<(u32, Duration)>>,
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
        self.calls.borrow_mut().push((id, self.start.elapsed()));
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
    /// `calls` to the nanosecond: (id, time since the start).
    exact_calls: Vec<(u32, Duration)>,
    /// `report` to the nanosecond: (id, deadline, fired), as times since the start (a
    /// deadline before the start counts as zero).
    exact_report: Vec<(u32, Duration, Duration)>,
    max_lateness: Duration,
    mean_lateness: Duration,
    /// When the function returned, ms after the start.
    returned_at: u64,
    peak: usize,
    finished: usize,
    /// Bytes the run asked the allocator for, from the call to its end.
    allocated: usize,
}

const STUCK: &str = "the runtime's only thread is stuck. Blocked: a std MutexGuard held \
    across an .await makes the next lock() wait forever, since on one thread nobody else can \
    release it (cargo clippy names the line: clippy::await_holding_lock). Or busy: a loop that \
    checks the clock instead of awaiting a timer never lets paused time move. Or a blocking \
    wait (std::thread::sleep, even inside spawn_blocking): paused time stands still while it \
    runs, so the deadline it waits for never comes.";

/// Runs `what` (fire_all or tick, given the handler) in paused time on a fresh
/// current-thread runtime, under a poll budget and a wall-clock watchdog: 5 s, or one
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
    let timers = deadlines_ms
        .iter()
        .enumerate()
        .map(|(id, &ms)| (id as u32, Duration::from_millis(ms)))
        .collect();
    run_timers(timers, hog, work, max_polls, what)
}

/// `run_hogging`, with the timers given as (id, deadline after the start): ids may repeat.
fn run_timers(
    timers: Vec<(u32, Duration)>,
    hog: fn(u32) -> Duration,
    work: fn(u32) -> Duration,
    max_polls: usize,
    what: What,
) -> Outcome {
    within_unblocked(5 * SECOND, SECOND, STUCK, move || {
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
            let timers: Vec<Timer> = timers
                .iter()
                .map(|&(id, after)| Timer {
                    id,
                    deadline: start + after,
                })
                .collect();
            let (timers, handler) = (&timers, &handler);
            let run: Pin<Box<dyn Future<Output = Report> + '_>> = match what {
                What::FireAll => Box::pin(fire_all(timers, handler)),
                What::FireAllAt(at) => Box::pin(async move {
                    sleep(at).await;
                    fire_all(timers, handler).await
                }),
                What::Tick { period, count } => Box::pin(tick(period, count, handler)),
                What::TickUntilDropped {
                    period,
                    count,
                    dropped_at,
                } => Box::pin(async move {
                    let ticking = tick(period, count, handler);
                    let cancelled = tokio::time::timeout(dropped_at, ticking).await;
                    cancelled.unwrap_or_default()
                }),
            };
            let before = allocated_bytes();
            let (report, _polls) = PollBudget::new(max_polls, "the timers' future", run).await;
            let allocated = allocated_bytes() - before;
            let since = |at: Instant| at.saturating_duration_since(start);
            let ms = |at: Instant| since(at).as_millis() as u64;
            let calls = calls.take();
            Outcome {
                returned_at: ms(Instant::now()),
                report: report
                    .fired
                    .iter()
                    .map(|f| (f.id, ms(f.deadline), ms(f.at)))
                    .collect(),
                exact_report: report
                    .fired
                    .iter()
                    .map(|f| (f.id, since(f.deadline), since(f.at)))
                    .collect(),
                calls: calls
                    .iter()
                    .map(|&(id, at)| (id, at.as_millis() as u64))
                    .collect(),
                exact_calls: calls,
                max_lateness: report.max_lateness(),
                mean_lateness: report.mean_lateness(),
                peak: handler.peak.get(),
                finished: handler.finished.get(),
                allocated,
            }
        })
    })
}

/// Which function a test runs.
#[derive(Clone, Copy)]
enum What {
    /// `fire_all` with a timer per deadline (ids 0, 1, …).
    FireAll,
    /// `fire_all`, called this long after the start: timers due before are already due.
    FireAllAt(Duration),
    /// `tick(period, count, …)`.
    Tick { period: Duration, count: u32 },
    /// `tick(period, count, …)`, dropped (cancelled) at `dropped_at` after the start.
    TickUntilDropped {
        period: Duration,
        count: u32,
        dropped_at: Duration,
    },
}

/// Runs `f`; if it panics, fails the test with `why` (the mistake) and the panic's message.
fn no_panic<T>(why: &str, f: impl FnOnce() -> T) -> T {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let said = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("a panic without a message");
        panic!("{why} (it panicked: {said})")
    })
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
    let from_report: Vec<(u32, Duration)> = out
        .exact_report
        .iter()
        .map(|&(id, _, at)| (id, at))
        .collect();
    same(
        &from_report,
        &out.exact_calls,
        "the report must list each firing (id, time since the start) when its handler was \
         called, in call order",
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
    // Seconds, hours and a day away: a correct answer sleeps until each deadline, and its
    // future is polled a handful of times. A loop that wakes every millisecond, or every
    // second, to check the clock is polled thousands of times, and fails its poll budget.
    const HOUR: u64 = 3_600_000;
    let out = run(vec![3_000, 9_000, 24 * HOUR], |_| MS, 20, What::FireAll);
    assert_eq!(
        out.calls,
        [(0, 3_000), (1, 9_000), (2, 24 * HOUR)],
        "(id, ms) of each call"
    );
    assert_eq!(out.returned_at, 24 * HOUR + 1);
    let out = run(
        vec![],
        |_| MS,
        20,
        What::Tick {
            period: Duration::from_secs(3_600),
            count: 3,
        },
    );
    assert_eq!(
        out.calls,
        [(1, HOUR), (2, 2 * HOUR), (3, 3 * HOUR)],
        "(tick, ms) of each handler call"
    );
    assert_eq!(out.returned_at, 3 * HOUR + 1);
}

#[test]
fn every_timer_fires_even_identical_or_already_due() {
    // fire_all is called at 10 ms. Timer 0 was due at 0 ms, timer 1 is due at 10 ms: both
    // are already due. Sixteen timers are due at 15 ms, two of them identical (id 7 twice),
    // and each of those sixteen handlers keeps the thread busy for 1 ms before it awaits.
    let mut timers = vec![(0, Duration::ZERO), (1, 10 * MS), (7, 15 * MS)];
    timers.extend((2..=16).map(|id| (id, 15 * MS)));
    let hog = |id| if id >= 2 { MS } else { Duration::ZERO };
    let out = run_timers(timers, hog, |_| MS, 1_000, What::FireAllAt(10 * MS));
    let count = |id| out.calls.iter().filter(|&&(i, _)| i == id).count();
    assert!(
        count(0) == 1 && count(1) == 1,
        "timers 0 and 1 were already due when fire_all was called (timer 0 10 ms before, \
         timer 1 at that instant): each must fire, at once, not be dropped as expired. \
         Calls (id, ms): {:?}",
        out.calls
    );
    assert_eq!(
        count(7),
        2,
        "two identical timers (id 7, both due at 15 ms) are two timers: each must fire and \
         be reported, not be merged into one (a set of (deadline, id) keeps one of them). \
         Calls (id, ms): {:?}",
        out.calls
    );
    let mut ids: Vec<u32> = out.calls.iter().map(|&(id, _)| id).collect();
    ids.sort();
    let mut given: Vec<u32> = (0..=16).chain([7]).collect();
    given.sort();
    assert_eq!(
        ids, given,
        "every timer given fires once. Calls (id, ms): {:?}",
        out.calls
    );
    for &(id, ms) in &out.calls {
        if id < 2 {
            assert_eq!(
                ms, 10,
                "timer {id} was already due when fire_all was called at 10 ms: it fires at \
                 once, at 10 ms"
            );
        }
    }
    let mut busy: Vec<u64> = out
        .calls
        .iter()
        .filter(|&&(id, _)| id >= 2)
        .map(|&(_, ms)| ms)
        .collect();
    busy.sort();
    assert_eq!(
        busy,
        (15..=30).collect::<Vec<u64>>(),
        "the sixteen timers due at 15 ms: each handler keeps the thread busy for 1 ms, so \
         they are called one after the other, at 15, 16, ... 30 ms"
    );
    let fired: Vec<(u32, u64)> = out.report.iter().map(|&(id, _, at)| (id, at)).collect();
    same(
        &fired,
        &out.calls,
        "the report's (id, ms) must be when each handler was really called: of timers due at \
         the same instant, the second is called only when the first handler lets go of the \
         thread (16 ms, not 15 ms). Record a firing right before its handler is called, not \
         when it is queued to be called (an async block starts only when it is polled)",
    );
}

#[test]
fn timers_never_fire_early_between_milliseconds_or_days_away() {
    // Deadlines that are not whole milliseconds (7.6 ms), two a millisecond apart (10 and
    // 11 ms), and one 50 days away (more milliseconds than a u32 holds). Nothing keeps the
    // thread busy: each timer fires at its deadline, or after it within tokio's 1 ms timer
    // resolution (the 7.6 ms one at 8 ms), and never before.
    const DAY: Duration = Duration::from_secs(24 * 3_600);
    let deadlines = [Duration::from_micros(7_600), 10 * MS, 11 * MS, 50 * DAY];
    let timers = deadlines
        .iter()
        .enumerate()
        .map(|(id, &d)| (id as u32, d))
        .collect();
    let out = run_timers(timers, |_| Duration::ZERO, |_| MS, 20, What::FireAll);
    for &(id, at) in &out.exact_calls {
        let due = deadlines[id as usize];
        assert!(
            at >= due,
            "timer {id}, due at {due:?}, fired at {at:?}, {:?} early: a timer must never fire \
             before its deadline. A deadline rounded down to whole milliseconds, timers due \
             'soon' fired together with an earlier one, or a deadline counted in a u32 of \
             milliseconds (it wraps after 49.7 days) each do this",
            due - at
        );
        assert!(
            at < due + MS,
            "timer {id}, due at {due:?}, fired at {at:?}, {:?} late although nothing kept the \
             thread busy: a timer fires at its deadline (within the timer's 1 ms resolution)",
            at - due
        );
    }
    let mut ids: Vec<u32> = out.calls.iter().map(|&(id, _)| id).collect();
    ids.sort();
    assert_eq!(ids, [0, 1, 2, 3], "every timer fires once");
    report_matches_calls(&out);
    assert_eq!(out.returned_at, (50 * DAY + MS).as_millis() as u64);
}

#[test]
fn ticks_keep_a_period_that_is_not_whole_milliseconds() {
    // 60 ticks of 16.667 ms (60 Hz); each handler takes 1 ms. Tick k is due at
    // k x 16.667 ms exactly, and fires then (tokio's timer rounds up to the next whole
    // millisecond), never before: tick 60 is due at 1000.02 ms.
    let period = Duration::from_micros(16_667);
    let out = run(vec![], |_| MS, 300, What::Tick { period, count: 60 });
    assert_eq!(out.exact_report.len(), 60, "60 ticks fire, each reported");
    for (&(k, due, _), k_expected) in out.exact_report.iter().zip(1..) {
        assert_eq!(
            (k, due),
            (k_expected, period * k_expected),
            "the report's (tick, deadline): tick k is due at start + k x period, exactly; a \
             period rounded to whole milliseconds drifts a little more on every tick"
        );
    }
    for &(k, at) in &out.exact_calls {
        let due = period * k;
        assert!(
            at >= due && at < due + MS,
            "tick {k}, due at {due:?}, fired at {at:?}: a tick fires at its deadline (within \
             the timer's 1 ms resolution), never before it, even when the period is not a \
             whole number of milliseconds"
        );
    }
    report_matches_calls(&out);
}

#[test]
fn ticks_already_due_fire_back_to_back() {
    // Tick 1's handler takes 230 ms, more than ten periods of 20 ms: ticks 2 to 6 (due at
    // 40 to 120 ms) are all late, and fire back to back from 250 ms on. None is skipped.
    let work = |k| if k == 1 { 230 * MS } else { MS };
    let out = run(
        vec![],
        work,
        100,
        What::Tick {
            period: 20 * MS,
            count: 6,
        },
    );
    let ticks: Vec<u32> = out.calls.iter().map(|&(k, _)| k).collect();
    assert_eq!(
        ticks,
        [1, 2, 3, 4, 5, 6],
        "every tick fires, however late: tick 2 is 210 ms late and must still fire, as soon \
         as tick 1's handler returns. A periodic timer that skips (or merges) ticks it \
         missed loses them"
    );
    assert_eq!(
        out.report,
        [
            (1, 20, 20),
            (2, 40, 250),
            (3, 60, 251),
            (4, 80, 252),
            (5, 100, 253),
            (6, 120, 254)
        ],
        "(tick, deadline ms, fired ms): each late tick fires as soon as the one before is done"
    );
    report_matches_calls(&out);

    // A zero period: every tick is due at the start, so they fire one after the other,
    // each as soon as the handler before it returns (handlers take 7 ms).
    let out = no_panic(
        "tick(Duration::ZERO, 3, ..) must work: a zero period is allowed, every tick is due \
         at the start, and they fire back to back. tokio's interval_at refuses a zero period",
        || {
            run(
                vec![],
                |_| 7 * MS,
                100,
                What::Tick {
                    period: Duration::ZERO,
                    count: 3,
                },
            )
        },
    );
    assert_eq!(
        out.report,
        [(1, 0, 0), (2, 0, 7), (3, 0, 14)],
        "a zero period: (tick, deadline ms, fired ms) of each tick"
    );
    report_matches_calls(&out);
    assert_eq!(out.returned_at, 21);
}

#[test]
fn a_tick_for_ever_grows_its_report_as_ticks_fire() {
    // A huge count means "until the caller drops it": tick's future is dropped at 35 ms,
    // after three ticks of 10 ms. Its memory must follow the ticks that fired, not the
    // ticks it was asked for.
    let out = run(
        vec![],
        |_| MS,
        100,
        What::TickUntilDropped {
            period: 10 * MS,
            count: 1_000_000,
            dropped_at: 35 * MS,
        },
    );
    assert_eq!(
        out.calls,
        [(1, 10), (2, 20), (3, 30)],
        "(tick, ms) of each call"
    );
    assert!(
        out.allocated < 64 << 10,
        "tick(10 ms, 1,000,000, ..) asked the allocator for {} bytes while 3 ticks fired: \
         the report must grow as ticks fire, not reserve room for `count` firings (or a \
         share of them) up front (a count of u32::MAX means 'until dropped', and would ask \
         for 170 GB)",
        out.allocated
    );
    let out = no_panic(
        "tick(10 ms, u32::MAX, ..) must tick until it is dropped: count may be u32::MAX, so \
         count + 1 overflows (loop over 1..=count)",
        || {
            run(
                vec![],
                |_| MS,
                100,
                What::TickUntilDropped {
                    period: 10 * MS,
                    count: u32::MAX,
                    dropped_at: 35 * MS,
                },
            )
        },
    );
    assert_eq!(
        out.calls,
        [(1, 10), (2, 20), (3, 30)],
        "(tick, ms) of each call"
    );
}
