//! Tests for lab 09, written once: labs/09-fan-out and solutions/09-fan-out both run
//! this file. They hand `fan_out` a `&Context` that borrows the test's own counters
//! (`Cell`, `RefCell`): nothing in it is `Send`, `Sync` or `'static`. They run in
//! virtual time (tokio's paused clock), so "ten requests of 100 ms take 100 ms" is an
//! exact, instant check rather than a hope, and under watchdogs (lab-support), so a
//! wrong answer fails its test instead of hanging it.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use fan_out::{Backend, FetchError, Profile, fan_out};
use lab_support::{Gauge, checked, paused};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

// ANCHOR: context
/// What the test watches. Owned by the test, lent to the backend.
#[derive(Default)]
struct Probe {
    /// Requests in flight now, the most at once, and how many started (drop guards).
    requests: Gauge,
    /// Requests that ran to the end.
    finished: Cell<usize>,
    /// Ids asked for, in the order the requests started.
    asked: RefCell<Vec<u32>>,
}

/// A fake backend. It borrows the test's probe, so it is not `'static`; the probe
/// counts in `Cell`s and a `RefCell`, so it is neither `Send` nor `Sync`.
struct Context<'t> {
    /// How long the request for an id takes.
    latency: fn(u32) -> Duration,
    /// The ids whose requests fail, after their latency.
    failing: &'t [u32],
    probe: &'t Probe,
}
// ANCHOR_END: context

impl<'t> Context<'t> {
    fn new(probe: &'t Probe, latency: fn(u32) -> Duration) -> Self {
        Context {
            latency,
            failing: &[],
            probe,
        }
    }

    fn failing(self, ids: &'t [u32]) -> Self {
        Context {
            failing: ids,
            ..self
        }
    }
}

impl Backend for Context<'_> {
    async fn fetch(&self, id: u32) -> Result<Profile, FetchError> {
        let probe = self.probe;
        probe.asked.borrow_mut().push(id);
        let _in_flight = probe.requests.enter(); // until finished or dropped

        sleep((self.latency)(id)).await;

        probe.finished.set(probe.finished.get() + 1);
        if self.failing.contains(&id) {
            return Err(FetchError { id });
        }
        Ok(Profile {
            id,
            name: format!("user-{id}"),
        })
    }
}

/// The one call into your code: a borrowed context and borrowed ids, under two checks
/// (lab-support's `checked`). A `Pending` that arranged no wake-up fails at once. And a
/// right answer is polled once, then once each time a request's timer wakes it (30 times
/// at most for the 2500 requests here): the poll budget is half the number of requests,
/// plus 20. Only a future woken without progress reaches it: one
/// that wakes itself (busy polling, which also freezes the paused clock), or one that a
/// clock tick wakes every millisecond instead of the requests' own wake-ups.
async fn run(ctx: &Context<'_>, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let budget = 20 + ids.len() / 2;
    checked(budget, "fan_out's future", fan_out(ctx, ids))
        .await
        .0
}

fn ids_of(profiles: &[Profile]) -> Vec<u32> {
    profiles.iter().map(|p| p.id).collect()
}

// ANCHOR: concurrently
#[test]
fn requests_run_concurrently() {
    paused(|| async {
        let probe = Probe::default();
        let ctx = Context::new(&probe, |_| 100 * MS);
        let ids: Vec<u32> = (1..=10).collect();

        let start = Instant::now();
        let profiles = run(&ctx, &ids).await.expect("no request fails here");

        assert_eq!(
            start.elapsed(),
            100 * MS,
            "10 requests of 100 ms each should take 100 ms in total when they run concurrently"
        );
        assert_eq!(
            probe.requests.peak(),
            10,
            "all 10 requests should be in flight at once"
        );
        assert_eq!(ids_of(&profiles), ids);
    });
}
// ANCHOR_END: concurrently

#[test]
fn thousands_of_requests_are_all_in_flight_at_once() {
    paused(|| async {
        // 2500: more than any round cap (1000, 1024, 2048) someone might pick.
        let probe = Probe::default();
        let ctx = Context::new(&probe, |id| (50 + id % 7) * MS);
        let ids: Vec<u32> = (1..=2500).rev().collect();

        let start = Instant::now();
        let profiles = run(&ctx, &ids).await.expect("no request fails here");

        assert_eq!(
            probe.requests.peak(),
            2500,
            "only {} of 2500 requests were in flight at once: fan_out must not cap its \
             concurrency (no chunks, no buffered(n) or buffer_unordered(n), however large)",
            probe.requests.peak()
        );
        assert_eq!(start.elapsed(), 56 * MS, "the slowest request takes 56 ms");
        assert_eq!(ids_of(&profiles), ids, "profiles in the order asked");
    });
}

#[test]
fn profiles_come_back_in_request_order() {
    paused(|| async {
        // Out of order, with a repeat; the requests finish in yet another order
        // (25, 30, 4, 4, 9, 12, 17), so neither sorting nor finishing order is right.
        let probe = Probe::default();
        let ctx = Context::new(&probe, |id| (10 + id * 37 % 90) * MS);
        let ids = [30, 4, 17, 4, 25, 9, 12];

        let profiles = run(&ctx, &ids).await.expect("no request fails here");

        assert_eq!(
            ids_of(&profiles),
            ids,
            "profiles must come back in the order asked: not sorted, not in the order \
             they finished"
        );
        assert_eq!(
            profiles[0],
            Profile {
                id: 30,
                name: "user-30".into()
            }
        );
    });
}

#[test]
fn every_id_is_asked_once() {
    paused(|| async {
        let probe = Probe::default();
        let ctx = Context::new(&probe, |_| 10 * MS);
        let ids = [7, 3, 9, 3];

        run(&ctx, &ids).await.expect("no request fails here");

        let mut asked = probe.asked.take();
        asked.sort();
        assert_eq!(
            asked,
            [3, 3, 7, 9],
            "one request per entry of ids, no more, no fewer"
        );
    });
}

#[test]
fn an_empty_list_is_not_an_error() {
    paused(|| async {
        let probe = Probe::default();
        let ctx = Context::new(&probe, |_| 100 * MS);
        let start = Instant::now();

        assert_eq!(run(&ctx, &[]).await, Ok(vec![]));
        assert_eq!(start.elapsed(), Duration::ZERO);
    });
}

#[test]
fn an_error_comes_back_to_the_caller() {
    paused(|| async {
        // Each request fails in turn, the first and the last included.
        let ids = [1, 2, 3, 4, 5];
        for failing in ids {
            let probe = Probe::default();
            let failing_ids = [failing];
            let ctx = Context::new(&probe, |_| 100 * MS).failing(&failing_ids);

            let result = run(&ctx, &ids).await;

            assert_eq!(
                result,
                Err(FetchError { id: failing }),
                "request {failing} failed: its error must reach the caller, not be \
                 printed, skipped or replaced"
            );
        }
    });
}

// ANCHOR: first_error
#[test]
fn an_error_stops_the_other_requests() {
    paused(|| async {
        // Id 3 fails after 10 ms; the others would need 100 ms.
        let probe = Probe::default();
        let ctx = Context::new(&probe, |id| if id == 3 { 10 * MS } else { 100 * MS }).failing(&[3]);

        let start = Instant::now();
        let result = run(&ctx, &[1, 2, 3, 4, 5]).await;

        assert_eq!(result, Err(FetchError { id: 3 }));
        assert_eq!(
            start.elapsed(),
            10 * MS,
            "fan_out should return as soon as one request fails, not wait for the others"
        );
        assert_eq!(
            probe.requests.now(),
            0,
            "no request may outlive the call to fan_out"
        );

        // Give any request that escaped the call plenty of time to finish on its own.
        sleep(1000 * MS).await;
        assert_eq!(
            probe.finished.get(),
            1,
            "only the failed request may run to the end"
        );
    });
}
// ANCHOR_END: first_error
