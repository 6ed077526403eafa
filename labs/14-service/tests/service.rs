//! Tests for lab 14, written once: labs/14-service and solutions/14-service both run
//! this file. The clients are fakes that borrow a `Probe` owned by the test and count in
//! `Cell`, `RefCell` and a `Gauge` (lab-support): nothing here is `Send`, `Sync` or
//! `'static`. Time is virtual (tokio's paused clock), so durations are exact, and every
//! test runs under watchdogs, so a wrong answer fails instead of hanging.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use lab_support::{Gauge, checked, paused};
use service::{Client, Context, Response, ServiceError, serve};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

/// What the test watches. Owned by the test, lent to every fake client.
#[derive(Default)]
struct Probe {
    /// Calls in flight now, the most at once, and how many started (drop guards).
    calls: Gauge,
    /// Calls that ran to the end, successful or not.
    finished: Cell<usize>,
    /// Every call started, as "service:id".
    started: RefCell<Vec<String>>,
}

// ANCHOR: fake
/// A fake backend service: answers `"name:id"` after `latency` (plus `jitter(id)`), or
/// fails for one request.
struct Fake<'p> {
    name: &'static str,
    latency: Duration,
    jitter: fn(u32) -> Duration,
    /// This request fails here, this long after its call starts.
    failing: Option<(u32, Duration)>,
    probe: &'p Probe,
}
// ANCHOR_END: fake

impl Client for Fake<'_> {
    async fn call(&self, id: u32) -> Result<String, ServiceError> {
        let probe = self.probe;
        (probe.started.borrow_mut()).push(format!("{}:{id}", self.name));
        let _in_flight = probe.calls.enter(); // until finished or dropped

        match self.failing {
            Some((failing, after)) if failing == id => {
                sleep(after).await;
                probe.finished.set(probe.finished.get() + 1);
                Err(ServiceError {
                    service: self.name.to_string(),
                    id,
                })
            }
            _ => {
                sleep(self.latency + (self.jitter)(id)).await;
                probe.finished.set(probe.finished.get() + 1);
                Ok(format!("{}:{id}", self.name))
            }
        }
    }
}

// ANCHOR: context
/// db takes 10 ms, then a (30 ms) and b (20 ms) together, then c (10 ms):
/// 50 ms per request when a and b overlap, 70 ms when they do not.
/// `failing`: which service fails, for which request, how long after its call starts.
fn context<'p>(probe: &'p Probe, failing: Option<(&str, u32, Duration)>) -> Context<Fake<'p>> {
    context_with(probe, failing, |_| Duration::ZERO)
}

/// The same, with `db_jitter(id)` added to each db call.
fn context_with<'p>(
    probe: &'p Probe,
    failing: Option<(&str, u32, Duration)>,
    db_jitter: fn(u32) -> Duration,
) -> Context<Fake<'p>> {
    let fake = |name, latency| Fake {
        name,
        latency,
        jitter: |_| Duration::ZERO,
        failing: (failing.filter(|&(service, ..)| service == name))
            .map(|(_, id, after)| (id, after)),
        probe,
    };
    Context {
        db: Fake {
            jitter: db_jitter,
            ..fake("db", 10 * MS)
        },
        service_a: fake("a", 30 * MS),
        service_b: fake("b", 20 * MS),
        service_c: fake("c", 10 * MS),
    }
}
// ANCHOR_END: context

/// The one call into your code: a borrowed context and borrowed ids, under lab-support's
/// `checked`. A `Pending` that arranged no wake-up fails at once. And a right answer is
/// polled once, then once each time calls wake it (a few more for tokio's cooperative
/// yields among thousands): the poll budget is twice the number of requests, plus 20.
/// Only a future woken without progress reaches it: one that wakes itself (busy
/// polling, which also freezes the paused clock), or one that a clock tick wakes every
/// millisecond instead of the calls' own wake-ups.
async fn run(ctx: &Context<Fake<'_>>, ids: &[u32]) -> Result<Vec<Response>, ServiceError> {
    let budget = 20 + 2 * ids.len();
    checked(budget, "serve's future", serve(ctx, ids)).await.0
}

fn expected(id: u32) -> Response {
    Response {
        id,
        user: format!("db:{id}"),
        a: format!("a:{id}"),
        b: format!("b:{id}"),
    }
}

// ANCHOR: concurrently
#[test]
fn requests_run_concurrently() {
    paused(|| async {
        let probe = Probe::default();
        let ctx = context(&probe, None);
        let ids: Vec<u32> = (1..=10).collect();

        let start = Instant::now();
        let responses = run(&ctx, &ids).await.expect("no call fails here");

        assert_eq!(
            start.elapsed(),
            50 * MS,
            "10 requests of 50 ms each should take 50 ms in total when they run concurrently"
        );
        assert_eq!(
            probe.calls.peak(),
            20,
            "at 10 ms, service a and service b should be in flight for all 10 requests"
        );
        let want: Vec<Response> = ids.iter().map(|&id| expected(id)).collect();
        assert_eq!(
            responses, want,
            "responses must come back in the order asked"
        );
    });
}
// ANCHOR_END: concurrently

#[test]
fn thousands_of_requests_run_at_once() {
    paused(|| async {
        // 2500: more than any round cap (100, 128, 1000, 1024) someone might pick.
        let probe = Probe::default();
        let ctx = context(&probe, None);
        let ids: Vec<u32> = (1..=2500).rev().collect();

        let start = Instant::now();
        let responses = run(&ctx, &ids).await.expect("no call fails here");

        assert_eq!(
            probe.calls.peak(),
            5000,
            "only {} calls were in flight at once, not 5000 (a and b for 2500 requests): \
             serve must not cap how many requests run at once (no chunks, no \
             buffered(n) or buffer_unordered(n), however large)",
            probe.calls.peak()
        );
        assert_eq!(start.elapsed(), 50 * MS);
        let want: Vec<Response> = ids.iter().map(|&id| expected(id)).collect();
        assert_eq!(responses, want, "responses in the order asked");
    });
}

#[test]
fn the_two_sub_calls_of_a_request_overlap() {
    paused(|| async {
        let probe = Probe::default();
        let ctx = context(&probe, None);

        let start = Instant::now();
        let responses = run(&ctx, &[7]).await.expect("no call fails here");

        assert_eq!(responses, [expected(7)]);
        assert_eq!(
            start.elapsed(),
            50 * MS,
            "db (10 ms), then a (30 ms) and b (20 ms) at the same time, then c (10 ms): \
             50 ms, not 70 ms"
        );
        assert_eq!(
            probe.calls.peak(),
            2,
            "a and b should be in flight together"
        );
    });
}

#[test]
fn responses_come_back_in_the_order_asked() {
    paused(|| async {
        // Out of order, with a repeat; db answers some requests later than others, so
        // the requests finish in yet another order (25, 30, 12, 17, 4, 4, 9).
        let probe = Probe::default();
        let ctx = context_with(&probe, None, |id| (id * 37 % 23) * MS);
        let ids = [30, 4, 17, 4, 25, 9, 12];

        let responses = run(&ctx, &ids).await.expect("no call fails here");

        let want: Vec<Response> = ids.iter().map(|&id| expected(id)).collect();
        assert_eq!(
            responses, want,
            "responses must come back in the order asked: not sorted, not in the order \
             they finished"
        );
        assert_eq!(
            probe.calls.total(),
            4 * ids.len(),
            "four calls per request, repeats included"
        );
    });
}

// ANCHOR: first_error
/// Request 3's call to `service` fails 5 ms after it starts; every other call works.
/// `serve` must return that error at `at`, with no call left in flight, and only
/// `finished` calls may ever run to the end.
async fn first_error(service: &'static str, at: Duration, finished: usize) {
    let probe = Probe::default();
    let ctx = context(&probe, Some((service, 3, 5 * MS)));

    let start = Instant::now();
    let result = run(&ctx, &[1, 2, 3, 4, 5]).await;

    let error = ServiceError {
        service: service.to_string(),
        id: 3,
    };
    assert_eq!(
        result,
        Err(error),
        "{service} failed for request 3: its error must reach the caller, not be \
         printed, defaulted or dropped"
    );
    assert_eq!(
        start.elapsed(),
        at,
        "serve should return as soon as the call to {service} fails"
    );
    assert_eq!(
        probe.calls.now(),
        0,
        "no call may still be running once serve has returned"
    );

    // Give anything that escaped the call plenty of time to run on its own.
    sleep(1000 * MS).await;
    assert_eq!(
        probe.finished.get(),
        finished,
        "{finished} calls may run to the end, no more: every other call stops with the error"
    );
}

#[test]
fn an_error_from_service_b_stops_everything() {
    // At 15 ms every db call is done (10 ms) and every a and b call is still running.
    paused(|| first_error("b", 15 * MS, 5 + 1));
}
// ANCHOR_END: first_error

#[test]
fn an_error_from_service_a_stops_everything() {
    paused(|| first_error("a", 15 * MS, 5 + 1));
}

#[test]
fn an_error_from_the_db_stops_everything() {
    // At 5 ms every other db call is still running.
    paused(|| first_error("db", 5 * MS, 1));
}

#[test]
fn an_error_from_the_audit_stops_everything() {
    // The audit calls start at 40 ms; request 3's fails at 45 ms, when the others are
    // still running. 5 db, 5 a, 5 b calls and the failed audit call ran to the end.
    paused(|| first_error("c", 45 * MS, 5 + 5 + 5 + 1));
}

#[test]
fn an_audit_error_comes_back_while_other_requests_run() {
    paused(|| async {
        // Request 3's db call answers at once; the others' take 100 ms longer. Request 3
        // reaches its audit at 40 ms, which fails at 45 ms, while every other request is
        // still waiting for the db: the error must come back then, and stop them all.
        let probe = Probe::default();
        let ctx = context_with(&probe, Some(("c", 3, 5 * MS)), |id| {
            if id == 3 { Duration::ZERO } else { 100 * MS }
        });

        let start = Instant::now();
        let result = run(&ctx, &[1, 2, 3, 4, 5]).await;

        assert_eq!(
            result,
            Err(ServiceError {
                service: "c".into(),
                id: 3
            })
        );
        assert_eq!(
            start.elapsed(),
            45 * MS,
            "request 3's audit failed at 45 ms, while the other requests were still \
             running: each request is audited as soon as its own response is ready, and \
             its error comes back then (not after a batch of audits once every request \
             is done)"
        );
        assert_eq!(probe.calls.now(), 0, "no call may outlive serve");
    });
}

#[test]
fn nothing_outlives_the_call() {
    paused(|| async {
        let probe = Probe::default();
        let ctx = context(&probe, None);
        let ids = [1, 2, 3];

        run(&ctx, &ids).await.expect("no call fails here");

        assert_eq!(
            probe.calls.now(),
            0,
            "no call may still be running once serve has returned"
        );
        assert_eq!(
            probe.finished.get(),
            12,
            "each request makes 4 calls (db, a, b and c), all finished before serve returns"
        );
        let mut audited: Vec<String> = (probe.started.borrow().iter())
            .filter(|call| call.starts_with("c:"))
            .cloned()
            .collect();
        audited.sort();
        assert_eq!(
            audited,
            ["c:1", "c:2", "c:3"],
            "every request is audited once"
        );
    });
}
