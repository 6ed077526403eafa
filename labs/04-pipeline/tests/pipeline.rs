//! Tests for lab 04, written once: labs/04-pipeline and solutions/04-pipeline both run
//! this file. They hand your functions a `&Site` whose state lives in `Rc`, `Cell` and
//! `RefCell`, and they run in virtual time (`start_paused`): tokio's clock jumps to the
//! next timer whenever every future is waiting, so elapsed times are exact.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use pipeline::{Source, fetch_as_ready, fetch_in_order};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

// ANCHOR: site
/// A fake web site, single-threaded on purpose: nothing in it is `Send` or `Sync`.
struct Site {
    /// How long fetching an id takes.
    latency: fn(u32) -> Duration,
    /// Requests started and neither finished nor dropped yet.
    in_flight: Rc<Cell<usize>>,
    /// The most requests in flight at once.
    peak: Cell<usize>,
    /// Ids asked for, in the order the requests started.
    started: RefCell<Vec<u32>>,
}

/// Counts a request as in flight until it is dropped, finished or not.
struct InFlight(Rc<Cell<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

impl Source for Site {
    async fn fetch(&self, id: u32) -> String {
        self.started.borrow_mut().push(id);
        self.in_flight.set(self.in_flight.get() + 1);
        self.peak.set(self.peak.get().max(self.in_flight.get()));
        let _in_flight = InFlight(Rc::clone(&self.in_flight));

        sleep((self.latency)(id)).await;
        format!("item {id}")
    }
}
// ANCHOR_END: site

impl Site {
    fn new(latency: fn(u32) -> Duration) -> Self {
        Site {
            latency,
            in_flight: Rc::new(Cell::new(0)),
            peak: Cell::new(0),
            started: RefCell::new(Vec::new()),
        }
    }
}

fn items(ids: &[u32]) -> Vec<String> {
    ids.iter().map(|id| format!("item {id}")).collect()
}

/// Ten ids of 100 ms each, three at a time.
const TEN: [u32; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

#[tokio::test(start_paused = true)]
async fn never_more_than_limit_in_flight() {
    let site = Site::new(|_| 100 * MS);

    let got = fetch_in_order(&site, &TEN, 3).await;

    assert_eq!(got, items(&TEN));
    assert_eq!(
        site.peak.get(),
        3,
        "with a limit of 3, exactly 3 requests should be in flight at the busiest moment"
    );
    assert_eq!(site.in_flight.get(), 0);
}

// ANCHOR: rounds
#[tokio::test(start_paused = true)]
async fn ten_items_three_at_a_time_take_four_rounds() {
    let site = Site::new(|_| 100 * MS);

    let start = Instant::now();
    fetch_in_order(&site, &TEN, 3).await;

    assert_eq!(
        start.elapsed(),
        400 * MS,
        "10 requests of 100 ms, 3 at a time, take ceil(10 / 3) = 4 rounds of 100 ms"
    );
}
// ANCHOR_END: rounds

#[tokio::test(start_paused = true)]
async fn a_free_slot_is_refilled_at_once() {
    // Item 2 is slow. Items 3, 4 and 5 should not wait for it: each starts as soon as
    // a slot is free. Working in batches of 2 would take 300 + 100 + 100 ms.
    let site = Site::new(|id| if id == 2 { 300 * MS } else { 100 * MS });
    let ids = [1, 2, 3, 4, 5];

    let start = Instant::now();
    let got = fetch_in_order(&site, &ids, 2).await;

    assert_eq!(got, items(&ids));
    assert_eq!(
        start.elapsed(),
        400 * MS,
        "1, 3 and 4 run one after the other while 2 takes 300 ms; 5 ends at 400 ms"
    );
    assert_eq!(site.peak.get(), 2);
}

#[tokio::test(start_paused = true)]
async fn items_come_back_in_the_order_asked() {
    // Later ids answer sooner, so they arrive in the reverse order.
    let site = Site::new(|id| Duration::from_millis(100 - 10 * u64::from(id)));
    let ids = [1, 2, 3, 4, 5];

    let got = fetch_in_order(&site, &ids, 3).await;

    assert_eq!(
        got,
        items(&ids),
        "fetch_in_order must keep the order of ids"
    );
}

// ANCHOR: as_ready
#[tokio::test(start_paused = true)]
async fn as_ready_hands_items_back_as_they_arrive() {
    // Item 1 takes 350 ms; the others 100 ms each, two at a time.
    let site = Site::new(|id| if id == 1 { 350 * MS } else { 100 * MS });

    let start = Instant::now();
    let got = fetch_as_ready(&site, &[1, 2, 3, 4, 5], 2).await;

    assert_eq!(
        got,
        items(&[2, 3, 4, 1, 5]),
        "2, 3 and 4 arrive at 100, 200 and 300 ms, 1 at 350 ms, 5 at 400 ms"
    );
    assert_eq!(start.elapsed(), 400 * MS);
    assert_eq!(site.peak.get(), 2);
}
// ANCHOR_END: as_ready

#[tokio::test(start_paused = true)]
async fn as_ready_never_more_than_limit_in_flight() {
    let site = Site::new(|_| 100 * MS);

    let start = Instant::now();
    let mut got = fetch_as_ready(&site, &TEN, 3).await;

    assert_eq!(
        site.peak.get(),
        3,
        "at most 3 requests in flight, and 3 used"
    );
    assert_eq!(start.elapsed(), 400 * MS);
    got.sort_by_key(|item| item[5..].parse::<u32>().unwrap());
    assert_eq!(got, items(&TEN), "every item exactly once");
    assert_eq!(
        *site.started.borrow(),
        TEN,
        "requests start in the order asked"
    );
}
