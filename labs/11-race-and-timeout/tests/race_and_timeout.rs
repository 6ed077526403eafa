//! Tests for lab 11, written once: labs/11-race-and-timeout and
//! solutions/11-race-and-timeout both run this file. The fakes borrow a `Probe` owned by
//! the test, which counts in `Cell`, `RefCell` and a `Gauge` (lab-support): nothing here
//! is `Send`, `Sync` or `'static`. Every test runs in virtual time (tokio's paused
//! clock), so "returns at 30 ms" and "the loser was dropped at 30 ms" are exact checks,
//! and under watchdogs, so a wrong answer fails its test instead of hanging it.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use lab_support::{Gauge, checked, paused};
use race_and_timeout::{
    Connection, Missing, Store, TimedOut, both, first_answer, read_lines, with_timeout,
};
use tokio::time::{Instant, sleep, sleep_until};

const MS: Duration = Duration::from_millis(1);

/// Awaits `fut`, a call into your code, under lab-support's `checked`. A `Pending` that
/// arranged no wake-up fails at once, and so does a poll beyond `max_polls`. A right
/// answer is polled once, then once per event it waits for (a lookup's timer, a piece
/// of a line, a heartbeat's timer): each test's `max_polls` is that, plus one to spare.
/// More polls mean that something else wakes the future: itself (busy polling, which
/// also freezes the paused clock), or a clock tick (a short sleep or an interval in a
/// loop) standing in for the wake-ups of lookups polled with a waker of their own.
async fn call<F: Future>(max_polls: usize, what: &'static str, fut: F) -> F::Output {
    checked(max_polls, what, fut).await.0
}

/// What the test watches. Owned by the test, lent to every fake.
struct Probe {
    start: Instant,
    /// Lookups in flight now, the most at once, and how many started (all replicas).
    lookups: Gauge,
    /// Each lookup started, by replica name.
    asked: RefCell<Vec<&'static str>>,
    /// Each lookup that ran to the end, by replica name.
    finished: RefCell<Vec<&'static str>>,
    /// Each lookup dropped before it finished: replica name, and when.
    dropped: RefCell<Vec<(&'static str, Duration)>>,
}

impl Probe {
    fn new() -> Self {
        Probe {
            start: Instant::now(),
            lookups: Gauge::new(),
            asked: RefCell::default(),
            finished: RefCell::default(),
            dropped: RefCell::default(),
        }
    }

    fn count(list: &RefCell<Vec<&'static str>>, replica: &str) -> usize {
        list.borrow()
            .iter()
            .filter(|&&name| name == replica)
            .count()
    }

    fn asked(&self, replica: &str) -> usize {
        Self::count(&self.asked, replica)
    }

    fn finished(&self, replica: &str) -> usize {
        Self::count(&self.finished, replica)
    }

    /// When the lookups of `replica` that never finished were dropped.
    fn dropped_at(&self, replica: &str) -> Vec<Duration> {
        let dropped = self.dropped.borrow();
        dropped
            .iter()
            .filter(|(name, _)| *name == replica)
            .map(|&(_, at)| at)
            .collect()
    }
}

// ANCHOR: replica
/// A fake replica: answers after a delay that depends on the key. It borrows the
/// test's probe: not `Send`, not `Sync`, not `'static`.
struct Replica<'t> {
    name: &'static str,
    latency: fn(&str) -> Duration,
    /// The key this replica has no value for, if any.
    missing: Option<&'static str>,
    probe: &'t Probe,
}
// ANCHOR_END: replica

impl<'t> Replica<'t> {
    fn new(name: &'static str, probe: &'t Probe, latency: fn(&str) -> Duration) -> Self {
        Replica {
            name,
            latency,
            missing: None,
            probe,
        }
    }

    fn missing(self, key: &'static str) -> Self {
        Replica {
            missing: Some(key),
            ..self
        }
    }
}

/// Records when a lookup is dropped, if it never finished.
struct Unfinished<'t> {
    replica: &'t Replica<'t>,
    done: bool,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        let probe = self.replica.probe;
        if !self.done {
            let at = probe.start.elapsed();
            probe.dropped.borrow_mut().push((self.replica.name, at));
        }
    }
}

impl Store for Replica<'_> {
    async fn get(&self, key: &str) -> Result<String, Missing> {
        let probe = self.probe;
        probe.asked.borrow_mut().push(self.name);
        let _in_flight = probe.lookups.enter(); // until finished or dropped
        let mut lookup = Unfinished {
            replica: self,
            done: false,
        };

        sleep((self.latency)(key)).await;

        lookup.done = true;
        probe.finished.borrow_mut().push(self.name);
        if self.missing == Some(key) {
            return Err(Missing { key: key.into() });
        }
        Ok(format!("{}:{key}", self.name))
    }
}

// ANCHOR: race
#[test]
fn first_answer_is_the_faster_replica() {
    paused(|| async {
        let probe = Probe::new();
        let primary = Replica::new("primary", &probe, |_| 100 * MS);
        let backup = Replica::new("backup", &probe, |_| 30 * MS);

        let start = Instant::now();
        let answer = call(3, "first_answer", first_answer(&primary, &backup, "k")).await;

        assert_eq!(answer, Ok("backup:k".to_string()));
        assert_eq!(start.elapsed(), 30 * MS, "the backup answers after 30 ms");
        assert_eq!(
            probe.dropped_at("primary"),
            [30 * MS],
            "the primary's lookup must be dropped when the backup wins, at 30 ms"
        );
    });
}
// ANCHOR_END: race

#[test]
fn first_answer_asks_both_and_drops_the_loser() {
    paused(|| async {
        let probe = Probe::new();
        let primary = Replica::new("primary", &probe, |_| 30 * MS);
        let backup = Replica::new("backup", &probe, |_| 100 * MS);

        let answer = call(3, "first_answer", first_answer(&primary, &backup, "k")).await;

        assert_eq!(answer, Ok("primary:k".to_string()));
        assert_eq!(
            probe.asked("backup"),
            1,
            "both replicas must be asked at once"
        );
        assert_eq!(
            probe.lookups.now(),
            0,
            "the loser must not outlive the call"
        );
        assert_eq!(probe.dropped_at("backup"), [30 * MS]);

        sleep(1000 * MS).await;
        assert_eq!(
            probe.finished("backup"),
            0,
            "the loser never runs to the end"
        );
    });
}

#[test]
fn first_answer_an_error_is_an_answer_too() {
    paused(|| async {
        let probe = Probe::new();
        let primary = Replica::new("primary", &probe, |_| 10 * MS).missing("k");
        let backup = Replica::new("backup", &probe, |_| 50 * MS);

        let start = Instant::now();
        let answer = call(3, "first_answer", first_answer(&primary, &backup, "k")).await;

        assert_eq!(answer, Err(Missing { key: "k".into() }));
        assert_eq!(
            start.elapsed(),
            10 * MS,
            "the first answer wins, even an error"
        );
        assert_eq!(probe.dropped_at("backup"), [10 * MS]);
    });
}

#[test]
fn first_answer_a_backup_error_is_an_answer_too() {
    paused(|| async {
        // The other way round: the backup answers first, with an error.
        let probe = Probe::new();
        let primary = Replica::new("primary", &probe, |_| 50 * MS);
        let backup = Replica::new("backup", &probe, |_| 10 * MS).missing("k");

        let start = Instant::now();
        let answer = call(3, "first_answer", first_answer(&primary, &backup, "k")).await;

        assert_eq!(
            answer,
            Err(Missing { key: "k".into() }),
            "the backup answered first, with an error: that is the answer, whichever \
             replica gives it"
        );
        assert_eq!(start.elapsed(), 10 * MS);
        assert_eq!(probe.dropped_at("primary"), [10 * MS]);
    });
}

#[test]
fn with_timeout_returns_what_finishes_in_time() {
    paused(|| async {
        let start = Instant::now();
        let output = call(
            3,
            "with_timeout",
            with_timeout(100 * MS, async {
                sleep(50 * MS).await;
                7
            }),
        )
        .await;

        assert_eq!(output, Ok(7));
        assert_eq!(start.elapsed(), 50 * MS, "no need to wait for the limit");
    });
}

// ANCHOR: timeout
#[test]
fn with_timeout_gives_up_at_the_limit() {
    paused(|| async {
        let probe = Probe::new();
        let store = Replica::new("store", &probe, |_| 500 * MS);

        let start = Instant::now();
        let output = call(3, "with_timeout", with_timeout(100 * MS, store.get("slow"))).await;

        assert_eq!(output, Err(TimedOut));
        assert_eq!(start.elapsed(), 100 * MS, "give up at the limit, not after");
        assert_eq!(
            probe.dropped_at("store"),
            [100 * MS],
            "the lookup must be dropped at the limit"
        );
    });
}
// ANCHOR_END: timeout

#[test]
fn with_timeout_gives_up_at_any_limit() {
    paused(|| async {
        // 37 ms is not a multiple of any tick a timeout might be checked on.
        let probe = Probe::new();
        let store = Replica::new("store", &probe, |_| 500 * MS);

        let start = Instant::now();
        let output = call(3, "with_timeout", with_timeout(37 * MS, store.get("slow"))).await;

        assert_eq!(output, Err(TimedOut));
        assert_eq!(
            start.elapsed(),
            37 * MS,
            "give up at exactly the limit: a timer for the whole limit, not a clock \
             checked every few milliseconds"
        );
        assert_eq!(probe.dropped_at("store"), [37 * MS]);
    });
}

#[test]
fn both_runs_the_lookups_concurrently() {
    paused(|| async {
        let probe = Probe::new();
        let store = Replica::new(
            "store",
            &probe,
            |key| if key == "a" { 100 * MS } else { 60 * MS },
        );

        let start = Instant::now();
        let pair = call(4, "both", both(&store, "a", "b")).await;

        assert_eq!(pair, Ok(("store:a".to_string(), "store:b".to_string())));
        assert_eq!(start.elapsed(), 100 * MS, "100 ms and 60 ms, side by side");
        assert_eq!(probe.lookups.peak(), 2, "both lookups in flight at once");
    });
}

#[test]
fn both_stops_at_the_first_error() {
    paused(|| async {
        let probe = Probe::new();
        let store = Replica::new(
            "store",
            &probe,
            |key| if key == "a" { 100 * MS } else { 10 * MS },
        )
        .missing("b");

        let start = Instant::now();
        let pair = call(3, "both", both(&store, "a", "b")).await;

        assert_eq!(pair, Err(Missing { key: "b".into() }));
        assert_eq!(start.elapsed(), 10 * MS, "the error comes back at once");
        assert_eq!(
            probe.dropped_at("store"),
            [10 * MS],
            "lookup a must be dropped when b fails"
        );
        sleep(1000 * MS).await;
        assert_eq!(
            probe.finished("store"),
            1,
            "only the failed lookup ran to the end"
        );
    });
}

#[test]
fn both_stops_at_the_first_error_of_either_lookup() {
    paused(|| async {
        // The other way round: a fails quickly while b is slow.
        let probe = Probe::new();
        let store = Replica::new(
            "store",
            &probe,
            |key| if key == "a" { 10 * MS } else { 100 * MS },
        )
        .missing("a");

        let start = Instant::now();
        let pair = call(3, "both", both(&store, "a", "b")).await;

        assert_eq!(pair, Err(Missing { key: "a".into() }));
        assert_eq!(probe.lookups.total(), 2, "both lookups start at once");
        assert_eq!(
            start.elapsed(),
            10 * MS,
            "a failed at 10 ms: its error must come back then, not once b is done"
        );
        assert_eq!(
            probe.dropped_at("store"),
            [10 * MS],
            "b is dropped at 10 ms"
        );
    });
}

/// A fake connection: pieces of text that arrive at set times, like a socket. A piece
/// that has arrived waits in the connection until a `next_line` future takes it; the
/// pieces a future has taken live in that future only.
struct Wire<'t> {
    /// (arrival time, piece), in order. A line ends with a piece ending in '\n'.
    pieces: Vec<(Duration, &'static str)>,
    /// When the other side closes the connection.
    closes_at: Duration,
    /// The first piece no `next_line` future has taken yet.
    next: Cell<usize>,
    probe: &'t Probe,
}

impl Connection for Wire<'_> {
    async fn next_line(&self) -> Option<String> {
        let start = self.probe.start;
        let mut line = String::new(); // dropped with this future, pieces and all
        loop {
            let Some(&(at, piece)) = self.pieces.get(self.next.get()) else {
                sleep_until(start + self.closes_at).await;
                return None;
            };
            if Instant::now() < start + at {
                sleep_until(start + at).await;
            }
            self.next.set(self.next.get() + 1); // taken: now only in `line`
            line.push_str(piece);
            if let Some(whole) = line.strip_suffix('\n') {
                return Some(whole.to_string());
            }
        }
    }
}

/// A heartbeat: records when it happened, and fails at once if heartbeats pile up.
fn beat(probe: &Probe, beats: &RefCell<Vec<Duration>>) {
    let mut beats = beats.borrow_mut();
    beats.push(probe.start.elapsed());
    assert!(
        beats.len() < 1000,
        "1000 heartbeats by {:?}: a timer that has fired is ready for ever after; make \
         a new `sleep` (or reset it) for each round",
        probe.start.elapsed()
    );
}

// ANCHOR: cancel_safe
#[test]
fn read_lines_loses_no_line_to_a_heartbeat() {
    paused(|| async {
        // Two lines arrive in two pieces each, 45 and 35 ms apart; a heartbeat is due
        // every 20 ms, so heartbeats win while a line is half read.
        let probe = Probe::new();
        let wire = Wire {
            pieces: vec![
                (5 * MS, "hel"),
                (50 * MS, "lo\n"),
                (60 * MS, "wor"),
                (95 * MS, "ld\n"),
                (130 * MS, "!\n"),
            ],
            closes_at: 160 * MS,
            next: Cell::new(0),
            probe: &probe,
        };
        let beats = RefCell::new(Vec::new());

        let lines = call(
            14,
            "read_lines",
            read_lines(&wire, 20 * MS, || beat(&probe, &beats)),
        )
        .await;

        assert_eq!(
            lines,
            ["hello", "world", "!"],
            "a heartbeat that wins the race must not drop the read in progress, or the \
             pieces it holds are lost: keep one `next_line` future across rounds"
        );
        assert_eq!(
            *beats.borrow(),
            [20 * MS, 40 * MS, 70 * MS, 90 * MS, 115 * MS, 150 * MS],
            "a heartbeat each time 20 ms pass without a line or a heartbeat"
        );
        assert_eq!(probe.start.elapsed(), 160 * MS, "done when the input ends");
    });
}
// ANCHOR_END: cancel_safe

#[test]
fn read_lines_beats_only_when_idle() {
    paused(|| async {
        // Whole lines at 10, 45 and 50 ms, then nothing until the end at 100 ms.
        let probe = Probe::new();
        let wire = Wire {
            pieces: vec![(10 * MS, "a\n"), (45 * MS, "b\n"), (50 * MS, "c\n")],
            closes_at: 100 * MS,
            next: Cell::new(0),
            probe: &probe,
        };
        let beats = RefCell::new(Vec::new());

        let lines = call(
            9,
            "read_lines",
            read_lines(&wire, 20 * MS, || beat(&probe, &beats)),
        )
        .await;

        assert_eq!(lines, ["a", "b", "c"]);
        assert_eq!(
            *beats.borrow(),
            [30 * MS, 70 * MS, 90 * MS],
            "a heartbeat is due 20 ms after the last line or heartbeat, not on a fixed \
             beat (an `interval` ticks at once and ignores lines)"
        );
    });
}
