//! Tests for lab 11, written once: labs/11-race-and-timeout and
//! solutions/11-race-and-timeout both run this file. The fake store keeps its state in
//! `Rc` and `Cell`, and every test runs in virtual time (`start_paused`), so "returns
//! at 30 ms" and "the loser was dropped at 30 ms" are exact checks.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use race_and_timeout::{Missing, Store, TimedOut, both, first_answer, with_timeout};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

// ANCHOR: replica
/// A fake replica: answers after a delay that depends on the key. Not `Send`, not `Sync`.
struct Replica {
    name: &'static str,
    latency: fn(&str) -> Duration,
    /// The key this replica has no value for, if any.
    missing: Option<&'static str>,
    /// Lookups started.
    asked: Cell<usize>,
    /// Lookups started and neither finished nor dropped yet.
    in_flight: Rc<Cell<usize>>,
    peak: Cell<usize>,
    /// Lookups that ran to the end.
    finished: Cell<usize>,
    /// When each unfinished lookup was dropped, measured from the test's start.
    dropped_at: Rc<RefCell<Vec<Duration>>>,
    start: Instant,
}
// ANCHOR_END: replica

impl Replica {
    fn new(name: &'static str, latency: fn(&str) -> Duration) -> Self {
        Replica {
            name,
            latency,
            missing: None,
            asked: Cell::new(0),
            in_flight: Rc::new(Cell::new(0)),
            peak: Cell::new(0),
            finished: Cell::new(0),
            dropped_at: Rc::new(RefCell::new(Vec::new())),
            start: Instant::now(),
        }
    }

    fn missing(mut self, key: &'static str) -> Self {
        self.missing = Some(key);
        self
    }
}

/// Counts a lookup as in flight until it is dropped; records when, if it never finished.
struct Lookup<'a> {
    replica: &'a Replica,
    done: bool,
}

impl Drop for Lookup<'_> {
    fn drop(&mut self) {
        let in_flight = &self.replica.in_flight;
        in_flight.set(in_flight.get() - 1);
        if !self.done {
            let at = self.replica.start.elapsed();
            self.replica.dropped_at.borrow_mut().push(at);
        }
    }
}

impl Store for Replica {
    async fn get(&self, key: &str) -> Result<String, Missing> {
        self.asked.set(self.asked.get() + 1);
        self.in_flight.set(self.in_flight.get() + 1);
        self.peak.set(self.peak.get().max(self.in_flight.get()));
        let mut lookup = Lookup {
            replica: self,
            done: false,
        };

        sleep((self.latency)(key)).await;

        lookup.done = true;
        self.finished.set(self.finished.get() + 1);
        if self.missing == Some(key) {
            return Err(Missing { key: key.into() });
        }
        Ok(format!("{}:{key}", self.name))
    }
}

// ANCHOR: race
#[tokio::test(start_paused = true)]
async fn first_answer_is_the_faster_replica() {
    let primary = Replica::new("primary", |_| 100 * MS);
    let backup = Replica::new("backup", |_| 30 * MS);

    let start = Instant::now();
    let answer = first_answer(&primary, &backup, "k").await;

    assert_eq!(answer, Ok("backup:k".to_string()));
    assert_eq!(start.elapsed(), 30 * MS, "the backup answers after 30 ms");
    assert_eq!(
        *primary.dropped_at.borrow(),
        [30 * MS],
        "the primary's lookup must be dropped when the backup wins, at 30 ms"
    );
}
// ANCHOR_END: race

#[tokio::test(start_paused = true)]
async fn first_answer_asks_both_and_drops_the_loser() {
    let primary = Replica::new("primary", |_| 30 * MS);
    let backup = Replica::new("backup", |_| 100 * MS);

    let answer = first_answer(&primary, &backup, "k").await;

    assert_eq!(answer, Ok("primary:k".to_string()));
    assert_eq!(backup.asked.get(), 1, "both replicas must be asked at once");
    assert_eq!(
        backup.in_flight.get(),
        0,
        "the loser must not outlive the call"
    );
    assert_eq!(*backup.dropped_at.borrow(), [30 * MS]);

    sleep(1000 * MS).await;
    assert_eq!(backup.finished.get(), 0, "the loser never runs to the end");
}

#[tokio::test(start_paused = true)]
async fn first_answer_an_error_is_an_answer_too() {
    let primary = Replica::new("primary", |_| 10 * MS).missing("k");
    let backup = Replica::new("backup", |_| 50 * MS);

    let start = Instant::now();
    let answer = first_answer(&primary, &backup, "k").await;

    assert_eq!(answer, Err(Missing { key: "k".into() }));
    assert_eq!(
        start.elapsed(),
        10 * MS,
        "the first answer wins, even an error"
    );
    assert_eq!(*backup.dropped_at.borrow(), [10 * MS]);
}

#[tokio::test(start_paused = true)]
async fn with_timeout_returns_what_finishes_in_time() {
    let start = Instant::now();
    let output = with_timeout(100 * MS, async {
        sleep(50 * MS).await;
        7
    })
    .await;

    assert_eq!(output, Ok(7));
    assert_eq!(start.elapsed(), 50 * MS, "no need to wait for the limit");
}

// ANCHOR: timeout
#[tokio::test(start_paused = true)]
async fn with_timeout_gives_up_at_the_limit() {
    let store = Replica::new("store", |_| 500 * MS);

    let start = Instant::now();
    let output = with_timeout(100 * MS, store.get("slow")).await;

    assert_eq!(output, Err(TimedOut));
    assert_eq!(start.elapsed(), 100 * MS, "give up at the limit, not after");
    assert_eq!(
        *store.dropped_at.borrow(),
        [100 * MS],
        "the lookup must be dropped at the limit"
    );
}
// ANCHOR_END: timeout

#[tokio::test(start_paused = true)]
async fn both_runs_the_lookups_concurrently() {
    let store = Replica::new("store", |key| if key == "a" { 100 * MS } else { 60 * MS });

    let start = Instant::now();
    let pair = both(&store, "a", "b").await;

    assert_eq!(pair, Ok(("store:a".to_string(), "store:b".to_string())));
    assert_eq!(start.elapsed(), 100 * MS, "100 ms and 60 ms, side by side");
    assert_eq!(store.peak.get(), 2, "both lookups in flight at once");
}

#[tokio::test(start_paused = true)]
async fn both_stops_at_the_first_error() {
    let store =
        Replica::new("store", |key| if key == "a" { 100 * MS } else { 10 * MS }).missing("b");

    let start = Instant::now();
    let pair = both(&store, "a", "b").await;

    assert_eq!(pair, Err(Missing { key: "b".into() }));
    assert_eq!(start.elapsed(), 10 * MS, "the error comes back at once");
    assert_eq!(
        *store.dropped_at.borrow(),
        [10 * MS],
        "lookup a must be dropped when b fails"
    );
    sleep(1000 * MS).await;
    assert_eq!(
        store.finished.get(),
        1,
        "only the failed lookup ran to the end"
    );
}
