//! Tests for lab 09, written once: labs/09-fan-out and solutions/09-fan-out both run
//! this file. They hand `fan_out` a `&Context` whose state lives in `Rc`, `Cell` and
//! `RefCell`, and they run in virtual time (`start_paused`), so "ten requests of
//! 100 ms take 100 ms" is an exact, instant check rather than a hope.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use fan_out::{Backend, FetchError, Profile, fan_out};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

// ANCHOR: context
/// A fake backend, single-threaded on purpose: nothing in it is `Send` or `Sync`.
struct Context {
    /// How long the request for an id takes.
    latency: fn(u32) -> Duration,
    /// The id whose request fails (after its latency), if any.
    failing: Option<u32>,
    /// Ids asked for, in the order the requests started.
    asked: RefCell<Vec<u32>>,
    /// Requests started and neither finished nor dropped yet.
    in_flight: Rc<Cell<usize>>,
    /// The most requests in flight at once.
    peak: Cell<usize>,
    /// Requests that ran to the end.
    finished: Cell<usize>,
}

impl Context {
    fn new(latency: fn(u32) -> Duration) -> Self {
        Context {
            latency,
            failing: None,
            asked: RefCell::new(Vec::new()),
            in_flight: Rc::new(Cell::new(0)),
            peak: Cell::new(0),
            finished: Cell::new(0),
        }
    }

    fn failing(mut self, id: u32) -> Self {
        self.failing = Some(id);
        self
    }
}

// ANCHOR_END: context
/// Counts a request as in flight until it is dropped, finished or not.
struct InFlight(Rc<Cell<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

impl Backend for Context {
    async fn fetch(&self, id: u32) -> Result<Profile, FetchError> {
        self.asked.borrow_mut().push(id);
        self.in_flight.set(self.in_flight.get() + 1);
        self.peak.set(self.peak.get().max(self.in_flight.get()));
        let _in_flight = InFlight(Rc::clone(&self.in_flight));

        sleep((self.latency)(id)).await;

        self.finished.set(self.finished.get() + 1);
        if self.failing == Some(id) {
            return Err(FetchError { id });
        }
        Ok(Profile {
            id,
            name: format!("user-{id}"),
        })
    }
}

/// The one call into your code: a borrowed context and borrowed ids.
async fn run(ctx: &Context, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    fan_out(ctx, ids).await
}

fn ids_of(profiles: &[Profile]) -> Vec<u32> {
    profiles.iter().map(|p| p.id).collect()
}

// ANCHOR: concurrently
#[tokio::test(start_paused = true)]
async fn requests_run_concurrently() {
    let ctx = Context::new(|_| 100 * MS);
    let ids: Vec<u32> = (1..=10).collect();

    let start = Instant::now();
    let profiles = run(&ctx, &ids).await.expect("no request fails here");

    assert_eq!(
        start.elapsed(),
        100 * MS,
        "10 requests of 100 ms each should take 100 ms in total when they run concurrently"
    );
    assert_eq!(
        ctx.peak.get(),
        10,
        "all 10 requests should be in flight at once"
    );
    assert_eq!(profiles.len(), 10);
}
// ANCHOR_END: concurrently

#[tokio::test(start_paused = true)]
async fn profiles_come_back_in_request_order() {
    // Later ids answer sooner, so finishing order is the reverse of request order.
    let ctx = Context::new(|id| Duration::from_millis(100 - 10 * u64::from(id)));
    let ids = [1, 2, 3, 4, 5];

    let profiles = run(&ctx, &ids).await.expect("no request fails here");

    assert_eq!(
        ids_of(&profiles),
        ids,
        "profiles must come back in the order asked"
    );
    assert_eq!(
        profiles[0],
        Profile {
            id: 1,
            name: "user-1".into()
        }
    );
}

#[tokio::test(start_paused = true)]
async fn every_id_is_asked_once() {
    let ctx = Context::new(|_| 10 * MS);
    let ids = [7, 3, 9, 3];

    run(&ctx, &ids).await.expect("no request fails here");

    let mut asked = ctx.asked.borrow().clone();
    asked.sort();
    assert_eq!(asked, [3, 3, 7, 9]);
}

#[tokio::test(start_paused = true)]
async fn an_empty_list_is_not_an_error() {
    let ctx = Context::new(|_| 100 * MS);
    let start = Instant::now();

    assert_eq!(run(&ctx, &[]).await, Ok(vec![]));
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn an_error_comes_back_to_the_caller() {
    let ctx = Context::new(|_| 100 * MS).failing(3);

    let result = run(&ctx, &[1, 2, 3, 4, 5]).await;

    assert_eq!(
        result,
        Err(FetchError { id: 3 }),
        "the failed request's error must reach the caller, not be printed and dropped"
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_stops_the_other_requests() {
    // Id 3 fails after 10 ms; the others would need 100 ms.
    let ctx = Context::new(|id| if id == 3 { 10 * MS } else { 100 * MS }).failing(3);

    let start = Instant::now();
    let result = run(&ctx, &[1, 2, 3, 4, 5]).await;

    assert_eq!(result, Err(FetchError { id: 3 }));
    assert_eq!(
        start.elapsed(),
        10 * MS,
        "fan_out should return as soon as one request fails, not wait for the others"
    );
    assert_eq!(
        ctx.in_flight.get(),
        0,
        "no request may outlive the call to fan_out"
    );

    // Give any request that escaped the call plenty of time to finish on its own.
    sleep(1000 * MS).await;
    assert_eq!(
        ctx.finished.get(),
        1,
        "only the failed request may run to the end"
    );
}
