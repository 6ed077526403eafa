//! Tests for lab 12, written once: labs/12-dynamic-fan-out and
//! solutions/12-dynamic-fan-out both run this file. The fake site keeps its state in
//! `Rc`, `Cell` and `RefCell`, and every test runs in virtual time (`start_paused`),
//! so "page 4 is asked for at 110 ms" is an exact check.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use dynamic_fan_out::{FetchError, Page, Site, crawl};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

// ANCHOR: site
/// A fake web site: who links to whom, and how long each page takes.
struct Web {
    links: fn(u32) -> Vec<u32>,
    latency: fn(u32) -> Duration,
    /// The page that fails (after its latency), if any.
    failing: Option<u32>,
    /// Each request, with the virtual time it started at.
    asked: RefCell<Vec<(u32, Duration)>>,
    /// Requests started and neither finished nor dropped yet.
    in_flight: Rc<Cell<usize>>,
    peak: Cell<usize>,
    /// Requests that ran to the end.
    finished: Cell<usize>,
    start: Instant,
}
// ANCHOR_END: site

impl Web {
    fn new(links: fn(u32) -> Vec<u32>, latency: fn(u32) -> Duration) -> Self {
        Web {
            links,
            latency,
            failing: None,
            asked: RefCell::new(Vec::new()),
            in_flight: Rc::new(Cell::new(0)),
            peak: Cell::new(0),
            finished: Cell::new(0),
            start: Instant::now(),
        }
    }

    fn failing(mut self, id: u32) -> Self {
        self.failing = Some(id);
        self
    }

    /// When the request for `id` started.
    fn asked_at(&self, id: u32) -> Option<Duration> {
        let asked = self.asked.borrow();
        asked
            .iter()
            .find(|(page, _)| *page == id)
            .map(|&(_, at)| at)
    }
}

/// Counts a request as in flight until it is dropped, finished or not.
struct InFlight(Rc<Cell<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

impl Site for Web {
    async fn fetch(&self, id: u32) -> Result<Page, FetchError> {
        self.asked.borrow_mut().push((id, self.start.elapsed()));
        self.in_flight.set(self.in_flight.get() + 1);
        self.peak.set(self.peak.get().max(self.in_flight.get()));
        let _in_flight = InFlight(Rc::clone(&self.in_flight));

        sleep((self.latency)(id)).await;

        self.finished.set(self.finished.get() + 1);
        if self.failing == Some(id) {
            return Err(FetchError { id });
        }
        Ok(Page {
            id,
            links: (self.links)(id),
        })
    }
}

fn ids(pages: &[Page]) -> Vec<u32> {
    pages.iter().map(|page| page.id).collect()
}

fn sorted(mut ids: Vec<u32>) -> Vec<u32> {
    ids.sort();
    ids
}

// ANCHOR: concurrently
#[tokio::test(start_paused = true)]
async fn pages_are_fetched_concurrently() {
    // 1 links to 2, 3 and 4; 2 links to 5 and 6. Three levels of 100 ms each.
    let web = Web::new(
        |id| match id {
            1 => vec![2, 3, 4],
            2 => vec![5, 6],
            _ => vec![],
        },
        |_| 100 * MS,
    );

    let start = Instant::now();
    let pages = crawl(&web, 1).await.expect("no page fails here");

    assert_eq!(sorted(ids(&pages)), [1, 2, 3, 4, 5, 6]);
    assert_eq!(
        start.elapsed(),
        300 * MS,
        "three levels of 100 ms: 300 ms when every known page is fetched at once"
    );
    assert_eq!(
        web.peak.get(),
        3,
        "pages 2, 3 and 4 should be in flight together"
    );
}
// ANCHOR_END: concurrently

// ANCHOR: as_soon_as_found
#[tokio::test(start_paused = true)]
async fn a_link_is_followed_as_soon_as_it_is_found() {
    // 1 links to 2 and 3. Page 2 is quick and links to 4; page 3 is slow.
    let web = Web::new(
        |id| match id {
            1 => vec![2, 3],
            2 => vec![4],
            _ => vec![],
        },
        |id| {
            if id == 2 || id == 4 {
                10 * MS
            } else {
                100 * MS
            }
        },
    );

    let start = Instant::now();
    crawl(&web, 1).await.expect("no page fails here");

    assert_eq!(
        web.asked_at(4),
        Some(110 * MS),
        "page 4 is known at 110 ms, when page 2 arrives: do not wait for page 3"
    );
    assert_eq!(start.elapsed(), 200 * MS);
}
// ANCHOR_END: as_soon_as_found

#[tokio::test(start_paused = true)]
async fn every_page_is_fetched_once() {
    // Links go round in circles, and 4 links to itself.
    let web = Web::new(
        |id| match id {
            1 => vec![2, 3],
            2 => vec![1, 3],
            3 => vec![1, 2, 4],
            _ => vec![4],
        },
        |_| 10 * MS,
    );

    let pages = crawl(&web, 1).await.expect("no page fails here");

    let asked: Vec<u32> = web.asked.borrow().iter().map(|&(id, _)| id).collect();
    assert_eq!(sorted(asked), [1, 2, 3, 4], "each page is asked for once");
    assert_eq!(sorted(ids(&pages)), [1, 2, 3, 4]);
}

#[tokio::test(start_paused = true)]
async fn pages_come_back_in_the_order_they_arrive() {
    // 1 links to 2 and 3; page 3 arrives before page 2.
    let web = Web::new(
        |id| if id == 1 { vec![2, 3] } else { vec![] },
        |id| if id == 2 { 50 * MS } else { 20 * MS },
    );

    let pages = crawl(&web, 1).await.expect("no page fails here");

    assert_eq!(ids(&pages), [1, 3, 2]);
    assert_eq!(pages[0].links, [2, 3]);
}

#[tokio::test(start_paused = true)]
async fn a_single_page_is_a_crawl_too() {
    let web = Web::new(|_| vec![], |_| 100 * MS);

    let pages = crawl(&web, 7).await.expect("no page fails here");

    assert_eq!(
        pages,
        [Page {
            id: 7,
            links: vec![]
        }]
    );
}

// ANCHOR: error
#[tokio::test(start_paused = true)]
async fn an_error_comes_back_at_once_and_stops_the_rest() {
    // 1 links to 2 and 3; page 3 fails after 10 ms, page 2 would take 100 ms.
    let web = Web::new(
        |id| if id == 1 { vec![2, 3] } else { vec![] },
        |id| if id == 3 { 10 * MS } else { 100 * MS },
    )
    .failing(3);

    let start = Instant::now();
    let result = crawl(&web, 1).await;

    assert_eq!(result, Err(FetchError { id: 3 }));
    assert_eq!(start.elapsed(), 110 * MS, "page 3 fails at 110 ms");
    assert_eq!(web.in_flight.get(), 0, "no request may outlive the crawl");

    sleep(1000 * MS).await;
    assert_eq!(web.finished.get(), 2, "page 2 never runs to the end");
}
// ANCHOR_END: error
