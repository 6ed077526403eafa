//! Tests for lab 04, written once: labs/04-pipeline and solutions/04-pipeline both run
//! this file. They hand your functions a `&Site` that keeps its state in `Cell`s and a
//! `RefCell` and borrows the test's in-flight gauge, so it is neither `Send` nor
//! `'static`. They run in virtual time (`paused`, from labs/support): tokio's clock jumps
//! to the next timer whenever every future is waiting, so elapsed times are exact. A poll
//! budget, and behind it a wall-clock watchdog, fail a test whose clock stopped moving
//! instead of letting it hang. Each test records its timeline in virtual time (the polls
//! of the test's future and of each request, the wake-ups of the test's task), which
//! `cargo labs check 04` shows when the test fails and `cargo labs trace 04 TEST` whole.

use std::cell::RefCell;
use std::time::Duration;

use lab_support::{Gauge, PollBudget, Recording, Traced, paused, traced};
use pipeline::{Source, fetch_as_ready, fetch_in_order};
use tokio::time::Instant;

const MS: Duration = Duration::from_millis(1);

/// `sleep`, the wait of every request in these tests: tokio's, in lab-support's `Traced`,
/// which records its polls on the test's timeline as "request a", "request b", … and
/// changes nothing it does.
fn sleep(duration: Duration) -> Traced<tokio::time::Sleep> {
    traced("request", tokio::time::sleep(duration))
}

/// Runs a test body like `paused` does, in virtual time under a wall-clock watchdog,
/// and also fails it, at once, if the body is polled more often than any correct answer
/// needs: something that wakes itself again and again (busy polling) would otherwise
/// keep the virtual clock from moving until the watchdog fires.
fn virtual_time<F, Fut>(make: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    let _timeline = Recording::start().virtual_time();
    paused(move || async move {
        // The most a correct answer here needs is under 600 polls.
        let budget = PollBudget::new(10_000, "the test", Box::pin(make()));
        let (output, _polls) = traced("the test", budget).await;
        output
    })
}

// ANCHOR: site
/// A fake web site, single-threaded on purpose: nothing in it is `Send` or `Sync`, and
/// it borrows the test's gauge, so it is not `'static` either.
struct Site<'a> {
    /// How long fetching an id takes.
    latency: fn(u32) -> Duration,
    /// Requests in flight: started, and neither finished nor dropped.
    in_flight: &'a Gauge,
    /// Ids asked for, in the order the requests started.
    started: RefCell<Vec<u32>>,
}

impl Source for Site<'_> {
    async fn fetch(&self, id: u32) -> String {
        self.started.borrow_mut().push(id);
        // In flight until this future finishes or is dropped.
        let _in_flight = self.in_flight.enter();
        sleep((self.latency)(id)).await;
        format!("item {id}")
    }
}
// ANCHOR_END: site

impl<'a> Site<'a> {
    fn new(in_flight: &'a Gauge, latency: fn(u32) -> Duration) -> Self {
        Site {
            latency,
            in_flight,
            started: RefCell::new(Vec::new()),
        }
    }

    /// Every id requested once, in the order asked, and nothing left in flight.
    fn assert_each_requested_in_order(&self, ids: &[u32]) {
        assert_eq!(
            *self.started.borrow(),
            ids,
            "each id in `ids` must be requested once, repeats too, and the requests must \
             start in the order of `ids`"
        );
        assert_eq!(self.in_flight.now(), 0, "a request was left in flight");
    }
}

/// The same site, reached through a client that sends a request as soon as `fetch` is
/// called, before anyone polls the future it returns (many clients work this way: the
/// future only waits for the answer). A request is in flight from that call on.
struct Eager<'s, 'a>(&'s Site<'a>);

impl Source for Eager<'_, '_> {
    fn fetch(&self, id: u32) -> impl Future<Output = String> {
        let site = self.0;
        site.started.borrow_mut().push(id);
        let in_flight = site.in_flight.enter();
        async move {
            let _in_flight = in_flight;
            sleep((site.latency)(id)).await;
            format!("item {id}")
        }
    }
}

fn items(ids: &[u32]) -> Vec<String> {
    ids.iter().map(|id| format!("item {id}")).collect()
}

/// Sorted by the number in "item N", to compare outputs whose order is free.
fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort_by_key(|item| item[5..].parse::<u32>().unwrap());
    items
}

/// Ten ids of 100 ms each, three at a time.
const TEN: [u32; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

#[test]
fn never_more_than_limit_in_flight() {
    virtual_time(|| async {
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |_| 100 * MS);

        let got = fetch_in_order(&site, &TEN, 3).await;

        assert_eq!(got, items(&TEN));
        assert_eq!(
            in_flight.peak(),
            3,
            "with a limit of 3, exactly 3 requests should be in flight at the busiest moment"
        );
        site.assert_each_requested_in_order(&TEN);
    });
}

// ANCHOR: rounds
#[test]
fn ten_items_three_at_a_time_take_four_rounds() {
    virtual_time(|| async {
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |_| 100 * MS);

        let start = Instant::now();
        fetch_in_order(&site, &TEN, 3).await;

        assert_eq!(
            start.elapsed(),
            400 * MS,
            "10 requests of 100 ms, 3 at a time, take ceil(10 / 3) = 4 rounds of 100 ms"
        );
    });
}
// ANCHOR_END: rounds

// ANCHOR: window
#[test]
fn a_sliding_window_not_batches() {
    // Item 2 is slow: 300 ms, the others 100 ms; 2 at a time. In batches of 2, each
    // batch waits for its slowest member: [1, 2] end at 300 ms, and the 4 batches after
    // it take 100 ms each, 700 ms. A sliding window starts 3 as soon as 1 has been
    // handed on, and the rest two by two once 2 is done: 600 ms. (`buffered` keeps 3's
    // finished output in its slot until 2 has been handed on, so 4 starts at 300 ms,
    // not 200; the end is the same.)
    virtual_time(|| async {
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |id| if id == 2 { 300 * MS } else { 100 * MS });
        let ids = [1, 2, 3, 4, 5, 6, 7, 8, 9];

        let start = Instant::now();
        let got = fetch_in_order(&site, &ids, 2).await;

        assert_eq!(got, items(&ids));
        assert_eq!(
            start.elapsed(),
            600 * MS,
            "a sliding window of 2 needs 600 ms here, batches of 2 need 700 ms: a request \
             must not wait for a whole batch to finish before it starts"
        );
        assert_eq!(in_flight.peak(), 2);
        site.assert_each_requested_in_order(&ids);
    });
}
// ANCHOR_END: window

#[test]
fn items_come_back_in_the_order_asked() {
    virtual_time(|| async {
        // Out of order, with repeats; an id takes id × 10 ms, so the items arrive in
        // neither the order asked nor the order of their ids.
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |id| 10 * MS * id);
        let ids = [7, 3, 12, 3, 1, 9, 7, 5];

        let got = fetch_in_order(&site, &ids, 3).await;

        assert_eq!(
            got,
            items(&ids),
            "fetch_in_order must keep the order of ids, whatever order the items arrive in"
        );
        assert!(in_flight.peak() <= 3, "more than 3 in flight");
        site.assert_each_requested_in_order(&ids);
    });
}

// ANCHOR: as_ready
#[test]
fn as_ready_hands_items_back_as_they_arrive() {
    virtual_time(|| async {
        // Item 1 takes 350 ms; the others 100 ms each, two at a time.
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |id| if id == 1 { 350 * MS } else { 100 * MS });

        let start = Instant::now();
        let got = fetch_as_ready(&site, &[1, 2, 3, 4, 5], 2).await;

        assert_eq!(
            got,
            items(&[2, 3, 4, 1, 5]),
            "2, 3 and 4 arrive at 100, 200 and 300 ms, 1 at 350 ms, 5 at 400 ms"
        );
        assert_eq!(start.elapsed(), 400 * MS);
        assert_eq!(in_flight.peak(), 2);
    });
}
// ANCHOR_END: as_ready

#[test]
fn as_ready_never_more_than_limit_in_flight() {
    virtual_time(|| async {
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |_| 100 * MS);

        let start = Instant::now();
        let got = fetch_as_ready(&site, &TEN, 3).await;

        assert_eq!(
            in_flight.peak(),
            3,
            "at most 3 requests in flight, and 3 used"
        );
        assert_eq!(start.elapsed(), 400 * MS);
        assert_eq!(sorted(got), items(&TEN), "every item exactly once");
        site.assert_each_requested_in_order(&TEN);
    });
}

#[test]
fn as_ready_fetches_every_id_repeats_too() {
    virtual_time(|| async {
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |id| 10 * MS * id);
        let ids = [4, 9, 4, 1, 9, 2];

        let got = fetch_as_ready(&site, &ids, 2).await;

        assert_eq!(
            sorted(got),
            sorted(items(&ids)),
            "one item per id in `ids`, repeats included"
        );
        assert!(in_flight.peak() <= 2, "more than 2 in flight");
        site.assert_each_requested_in_order(&ids);
    });
}

#[test]
fn a_thousand_ids_seven_at_a_time() {
    // Beyond the small numbers: 1,000 ids, a limit of 7, 100 ms each, so
    // ceil(1000 / 7) = 143 rounds, for both functions.
    let ids: Vec<u32> = (0..1_000).map(|i| (i * 37) % 1_000).collect();
    virtual_time(move || async move {
        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |_| 100 * MS);
        let start = Instant::now();
        let got = fetch_in_order(&site, &ids, 7).await;
        assert_eq!(got, items(&ids));
        assert_eq!(in_flight.peak(), 7, "fetch_in_order: the limit is 7");
        assert_eq!(
            start.elapsed(),
            143 * 100 * MS,
            "fetch_in_order: 143 rounds"
        );
        site.assert_each_requested_in_order(&ids);

        let in_flight = Gauge::new();
        let site = Site::new(&in_flight, |_| 100 * MS);
        let start = Instant::now();
        let got = fetch_as_ready(&site, &ids, 7).await;
        assert_eq!(sorted(got), sorted(items(&ids)));
        assert_eq!(in_flight.peak(), 7, "fetch_as_ready: the limit is 7");
        assert_eq!(
            start.elapsed(),
            143 * 100 * MS,
            "fetch_as_ready: 143 rounds"
        );
        site.assert_each_requested_in_order(&ids);
    });
}

#[test]
fn fetch_is_called_only_when_a_slot_is_free() {
    virtual_time(|| async {
        for as_ready in [false, true] {
            let which = if as_ready {
                "fetch_as_ready"
            } else {
                "fetch_in_order"
            };
            let in_flight = Gauge::new();
            let site = Site::new(&in_flight, |_| 100 * MS);
            let client = Eager(&site);

            let start = Instant::now();
            let got = if as_ready {
                sorted(fetch_as_ready(&client, &TEN, 3).await)
            } else {
                fetch_in_order(&client, &TEN, 3).await
            };

            assert_eq!(
                in_flight.peak(),
                3,
                "{which}: with a limit of 3, {} requests were in flight at once. This source \
                 sends a request as soon as `fetch` is called, as many clients do, so \
                 calling `fetch` for ids whose turn has not come (collecting every future \
                 first, or creating the next one early) starts them. Call `fetch` only \
                 when a slot is free",
                in_flight.peak()
            );
            assert_eq!(got, items(&TEN), "{which}");
            assert_eq!(start.elapsed(), 400 * MS, "{which}: 4 rounds of 100 ms");
            site.assert_each_requested_in_order(&TEN);
        }
    });
}

#[test]
fn limits_from_one_to_beyond_the_ids() {
    // A limit of 1 is one request at a time; a wide limit is not capped at some number
    // that looked big enough; a limit above the number of ids starts them all.
    let ids: Vec<u32> = (0..1_000).map(|i| (i * 37) % 1_000).collect();
    virtual_time(move || async move {
        for (limit, n, peak, rounds) in
            [(1, 5, 1, 5), (600, 1_000, 600, 2), (5_000, 1_000, 1_000, 1)]
        {
            let ids = &ids[..n];
            for as_ready in [false, true] {
                let which = if as_ready {
                    "fetch_as_ready"
                } else {
                    "fetch_in_order"
                };
                let in_flight = Gauge::new();
                let site = Site::new(&in_flight, |_| 100 * MS);

                let start = Instant::now();
                let got = if as_ready {
                    sorted(fetch_as_ready(&site, ids, limit).await)
                } else {
                    fetch_in_order(&site, ids, limit).await
                };

                assert_eq!(
                    in_flight.peak(),
                    peak,
                    "{which}, {n} ids with a limit of {limit}: {peak} requests should be in \
                     flight at the busiest moment. The limit is the caller's: use it as it \
                     is, not capped or raised"
                );
                assert_eq!(
                    start.elapsed(),
                    rounds * 100 * MS,
                    "{which}, {n} ids with a limit of {limit}: {rounds} rounds of 100 ms"
                );
                let want = if as_ready {
                    sorted(items(ids))
                } else {
                    items(ids)
                };
                assert_eq!(got, want, "{which}");
                site.assert_each_requested_in_order(ids);
            }
        }
    });
}
