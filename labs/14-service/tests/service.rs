//! Tests for lab 14, written once: labs/14-service and solutions/14-service both run
//! this file. The clients are fakes that borrow a `Probe` owned by the test (plain `&`
//! data) and count in `Cell`, `RefCell` and an `Rc`: nothing here is `Send`, `Sync` or
//! `'static`. Time is virtual (`start_paused`), so durations are exact.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use service::{Client, Context, Response, ServiceError, serve};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

/// What the test watches. Owned by the test, lent to every fake client.
#[derive(Default)]
struct Probe {
    /// Calls started and neither finished nor dropped yet.
    in_flight: Rc<Cell<usize>>,
    /// The most calls in flight at once.
    peak: Cell<usize>,
    /// Calls that ran to the end, successful or not.
    finished: Cell<usize>,
    /// Every call started, as "service:id".
    started: RefCell<Vec<String>>,
}

// ANCHOR: fake
/// A fake backend service: answers `"name:id"` after `latency`, or fails for one id.
struct Fake<'p> {
    name: &'static str,
    latency: Duration,
    /// This request fails here, after this long.
    failing: Option<(u32, Duration)>,
    probe: &'p Probe,
}
// ANCHOR_END: fake

/// Counts a call as in flight until it is dropped, finished or not.
struct InFlight(Rc<Cell<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

impl Client for Fake<'_> {
    async fn call(&self, id: u32) -> Result<String, ServiceError> {
        let probe = self.probe;
        probe
            .started
            .borrow_mut()
            .push(format!("{}:{id}", self.name));
        probe.in_flight.set(probe.in_flight.get() + 1);
        probe.peak.set(probe.peak.get().max(probe.in_flight.get()));
        let _in_flight = InFlight(Rc::clone(&probe.in_flight));

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
                sleep(self.latency).await;
                probe.finished.set(probe.finished.get() + 1);
                Ok(format!("{}:{id}", self.name))
            }
        }
    }
}

// ANCHOR: context
/// db takes 10 ms, then a (30 ms) and b (20 ms) together, then c (10 ms):
/// 50 ms per request when a and b overlap, 70 ms when they do not.
fn context(probe: &Probe, b_fails: Option<(u32, Duration)>) -> Context<Fake<'_>> {
    let fake = |name, latency| Fake {
        name,
        latency,
        failing: None,
        probe,
    };
    Context {
        db: fake("db", 10 * MS),
        service_a: fake("a", 30 * MS),
        service_b: Fake {
            failing: b_fails,
            ..fake("b", 20 * MS)
        },
        service_c: fake("c", 10 * MS),
    }
}
// ANCHOR_END: context

/// The one call into your code: a borrowed context and borrowed ids.
async fn run(ctx: &Context<Fake<'_>>, ids: &[u32]) -> Result<Vec<Response>, ServiceError> {
    serve(ctx, ids).await
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
#[tokio::test(start_paused = true)]
async fn requests_run_concurrently() {
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
        probe.peak.get(),
        20,
        "at 10 ms, service a and service b should be in flight for all 10 requests"
    );
    let want: Vec<Response> = ids.iter().map(|&id| expected(id)).collect();
    assert_eq!(
        responses, want,
        "responses must come back in the order asked"
    );
}
// ANCHOR_END: concurrently

#[tokio::test(start_paused = true)]
async fn the_two_sub_calls_of_a_request_overlap() {
    let probe = Probe::default();
    let ctx = context(&probe, None);

    let start = Instant::now();
    let responses = run(&ctx, &[7]).await.expect("no call fails here");

    assert_eq!(responses, [expected(7)]);
    assert_eq!(
        start.elapsed(),
        50 * MS,
        "db (10 ms), then a (30 ms) and b (20 ms) at the same time, then c (10 ms): 50 ms, not 70 ms"
    );
    assert_eq!(probe.peak.get(), 2, "a and b should be in flight together");
}

#[tokio::test(start_paused = true)]
async fn an_error_comes_back_to_the_caller() {
    let probe = Probe::default();
    let ctx = context(&probe, Some((3, 20 * MS)));

    let result = run(&ctx, &[1, 2, 3, 4, 5]).await;

    assert_eq!(
        result,
        Err(ServiceError {
            service: "b".to_string(),
            id: 3
        }),
        "the failed call's error must reach the caller, not be printed and dropped"
    );
}

// ANCHOR: first_error
#[tokio::test(start_paused = true)]
async fn the_first_error_stops_everything() {
    // Request 3's call to b fails 5 ms after it starts, at 15 ms. By then every db call
    // is done (10 ms) and every a and b call is still running.
    let probe = Probe::default();
    let ctx = context(&probe, Some((3, 5 * MS)));

    let start = Instant::now();
    let result = run(&ctx, &[1, 2, 3, 4, 5]).await;

    let error = ServiceError {
        service: "b".to_string(),
        id: 3,
    };
    assert_eq!(result, Err(error));
    assert_eq!(
        start.elapsed(),
        15 * MS,
        "serve should return as soon as a call fails"
    );
    assert_eq!(
        probe.in_flight.get(),
        0,
        "no call may still be running once serve has returned"
    );

    // Give anything that escaped the call plenty of time to run on its own.
    sleep(1000 * MS).await;
    assert_eq!(
        probe.finished.get(),
        6,
        "only the 5 db calls and the failed b call may run to the end"
    );
}
// ANCHOR_END: first_error

#[tokio::test(start_paused = true)]
async fn nothing_outlives_the_call() {
    let probe = Probe::default();
    let ctx = context(&probe, None);
    let ids = [1, 2, 3];

    run(&ctx, &ids).await.expect("no call fails here");

    assert_eq!(
        probe.in_flight.get(),
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
}
