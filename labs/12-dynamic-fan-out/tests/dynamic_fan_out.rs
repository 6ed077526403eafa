//! Tests for lab 12, written once: labs/12-dynamic-fan-out and
//! solutions/12-dynamic-fan-out both run this file. The fake site borrows the test's
//! own counters (`Cell`, `RefCell`, a `Gauge` from lab-support), so it is neither `Send`
//! nor `'static`. Every test runs in virtual time (tokio's paused clock), so "page 4 is
//! asked for at 110 ms" is an exact check, and under watchdogs, so a wrong answer fails
//! its test instead of hanging it.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use dynamic_fan_out::{FetchError, Page, Site, crawl};
use lab_support::{Gauge, checked, paused};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

/// What the test watches. Owned by the test, lent to the site.
#[derive(Default)]
struct Probe {
    /// Requests in flight now, the most at once, and how many started (drop guards).
    requests: Gauge,
    /// Requests that ran to the end.
    finished: Cell<usize>,
    /// Each request, with the virtual time it started at.
    asked: RefCell<Vec<(u32, Duration)>>,
}

// ANCHOR: site
/// A fake web site: who links to whom, and how long each page takes. It borrows the
/// test's probe: not `Send`, not `Sync`, not `'static`.
struct Web<'t> {
    links: fn(u32) -> Vec<u32>,
    latency: fn(u32) -> Duration,
    /// The pages that fail (after their latency).
    failing: &'t [u32],
    probe: &'t Probe,
    start: Instant,
}
// ANCHOR_END: site

impl<'t> Web<'t> {
    fn new(probe: &'t Probe, links: fn(u32) -> Vec<u32>, latency: fn(u32) -> Duration) -> Self {
        Web {
            links,
            latency,
            failing: &[],
            probe,
            start: Instant::now(),
        }
    }

    fn failing(self, pages: &'t [u32]) -> Self {
        Web {
            failing: pages,
            ..self
        }
    }

    /// When the request for `id` started.
    fn asked_at(&self, id: u32) -> Option<Duration> {
        let asked = self.probe.asked.borrow();
        asked
            .iter()
            .find(|(page, _)| *page == id)
            .map(|&(_, at)| at)
    }

    /// Every page asked for, sorted.
    fn asked(&self) -> Vec<u32> {
        sorted(
            self.probe
                .asked
                .borrow()
                .iter()
                .map(|&(id, _)| id)
                .collect(),
        )
    }
}

impl Site for Web<'_> {
    async fn fetch(&self, id: u32) -> Result<Page, FetchError> {
        let probe = self.probe;
        (probe.asked.borrow_mut()).push((id, self.start.elapsed()));
        let _in_flight = probe.requests.enter(); // until finished or dropped

        sleep((self.latency)(id)).await;

        probe.finished.set(probe.finished.get() + 1);
        if self.failing.contains(&id) {
            return Err(FetchError { id });
        }
        Ok(Page {
            id,
            links: (self.links)(id),
        })
    }
}

/// The one call into your code, under lab-support's `checked`: a `Pending` that arranged
/// no wake-up fails at once, and so does a poll beyond the budget. A right answer is
/// polled a few times each time pages arrive: under 15 times for the small crawls of
/// these tests, whose budget is 40. Only a future woken without progress goes beyond:
/// one that wakes itself (busy polling, which also freezes the paused clock), or one
/// that a clock tick wakes every millisecond instead of the requests' own wake-ups.
async fn run(web: &Web<'_>, start: u32) -> Result<Vec<Page>, FetchError> {
    run_within(40, web, start).await
}

/// `run`, with a poll budget of its own for a wide crawl.
async fn run_within(max_polls: usize, web: &Web<'_>, start: u32) -> Result<Vec<Page>, FetchError> {
    checked(max_polls, "crawl's future", crawl(web, start))
        .await
        .0
}

fn ids(pages: &[Page]) -> Vec<u32> {
    pages.iter().map(|page| page.id).collect()
}

fn sorted(mut ids: Vec<u32>) -> Vec<u32> {
    ids.sort();
    ids
}

// ANCHOR: concurrently
#[test]
fn pages_are_fetched_concurrently() {
    paused(|| async {
        // 1 links to 2, 3 and 4; 2 links to 5 and 6. Three levels of 100 ms each.
        let probe = Probe::default();
        let web = Web::new(
            &probe,
            |id| match id {
                1 => vec![2, 3, 4],
                2 => vec![5, 6],
                _ => vec![],
            },
            |_| 100 * MS,
        );

        let start = Instant::now();
        let pages = run(&web, 1).await.expect("no page fails here");

        assert_eq!(sorted(ids(&pages)), [1, 2, 3, 4, 5, 6]);
        assert_eq!(
            start.elapsed(),
            300 * MS,
            "three levels of 100 ms: 300 ms when every known page is fetched at once"
        );
        let mut asked = probe.asked.take();
        asked.sort();
        assert_eq!(
            asked,
            [
                (1, Duration::ZERO),
                (2, 100 * MS),
                (3, 100 * MS),
                (4, 100 * MS),
                (5, 200 * MS),
                (6, 200 * MS)
            ],
            "each page should be asked for as soon as a link to it arrives: 2, 3 and 4 \
             at 100 ms, in flight together, then 5 and 6 at 200 ms"
        );
    });
}
// ANCHOR_END: concurrently

#[test]
fn thousands_of_links_are_followed_at_once() {
    paused(|| async {
        // Page 1 links to 2500 pages, in no particular order; each of them links to one
        // more page of its own. 2500: more than any round cap (1000, 1024, 2048) someone
        // might pick.
        let probe = Probe::default();
        let web = Web::new(
            &probe,
            |id| match id {
                1 => (0..2500).map(|i| 2 + (i * 7) % 2500).collect(),
                2..=2501 => vec![id + 2500],
                _ => vec![],
            },
            |id| (10 + id % 13) * MS,
        );

        let start = Instant::now();
        let pages = run_within(500, &web, 1).await.expect("no page fails here");

        assert_eq!(pages.len(), 5001, "page 1, its 2500 links and theirs");
        assert_eq!(
            probe.requests.peak(),
            2500,
            "only {} of the 2500 known pages were in flight at once: crawl must not cap \
             its concurrency, however large the cap",
            probe.requests.peak()
        );
        // The slowest chain: page 1 (11 ms), page 8 (18 ms), page 2508 (22 ms).
        assert_eq!(
            start.elapsed(),
            (11 + 18 + 22) * MS,
            "the slowest chain of pages takes 51 ms: some link waited for pages that \
             were not its own"
        );
    });
}

// ANCHOR: as_soon_as_found
#[test]
fn a_link_is_followed_as_soon_as_it_is_found() {
    paused(|| async {
        // 1 links to 3 and 2, in that order. Page 3 is slow; page 2 is quick and links
        // to 4.
        let probe = Probe::default();
        let web = Web::new(
            &probe,
            |id| match id {
                1 => vec![3, 2],
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
        run(&web, 1).await.expect("no page fails here");

        assert_eq!(
            web.asked_at(4),
            Some(110 * MS),
            "page 4 is known at 110 ms, when page 2 arrives; it was asked for later, \
             when slow page 3 was done: were the jobs awaited in spawn order (or level \
             by level) instead of as they finish?"
        );
        assert_eq!(start.elapsed(), 200 * MS);
    });
}
// ANCHOR_END: as_soon_as_found

#[test]
fn every_page_is_fetched_once() {
    paused(|| async {
        // Links go round in circles, repeat themselves, and 4 links to itself.
        let probe = Probe::default();
        let web = Web::new(
            &probe,
            |id| match id {
                1 => vec![2, 3, 2],
                2 => vec![1, 3, 3],
                3 => vec![1, 2, 4],
                _ => vec![4],
            },
            |_| 10 * MS,
        );

        let pages = run(&web, 1).await.expect("no page fails here");

        assert_eq!(web.asked(), [1, 2, 3, 4], "each page is asked for once");
        assert_eq!(sorted(ids(&pages)), [1, 2, 3, 4]);
    });
}

#[test]
fn pages_come_back_in_the_order_they_arrive() {
    paused(|| async {
        // 1 links to 4, 2 and 3; they arrive as 3, 4, 2: neither the order of the links
        // nor sorted.
        let probe = Probe::default();
        let web = Web::new(
            &probe,
            |id| if id == 1 { vec![4, 2, 3] } else { vec![] },
            |id| match id {
                2 => 50 * MS,
                4 => 30 * MS,
                _ => 20 * MS,
            },
        );

        let pages = run(&web, 1).await.expect("no page fails here");

        assert_eq!(
            ids(&pages),
            [1, 3, 4, 2],
            "pages in the order they arrived: not sorted, not in the order of the links \
             (take the jobs as they finish, not in spawn order)"
        );
        assert_eq!(pages[0].links, [4, 2, 3]);
    });
}

#[test]
fn a_single_page_is_a_crawl_too() {
    paused(|| async {
        let probe = Probe::default();
        let web = Web::new(&probe, |_| vec![], |_| 100 * MS);

        let pages = run(&web, 7).await.expect("no page fails here");

        assert_eq!(
            pages,
            [Page {
                id: 7,
                links: vec![]
            }]
        );
    });
}

// ANCHOR: error
#[test]
fn an_error_comes_back_at_once_and_stops_the_rest() {
    paused(|| async {
        // 1 links to 2 and 3; page 3 fails after 10 ms, page 2 would take 100 ms.
        let probe = Probe::default();
        let web = Web::new(
            &probe,
            |id| if id == 1 { vec![2, 3] } else { vec![] },
            |id| if id == 3 { 10 * MS } else { 100 * MS },
        )
        .failing(&[3]);

        let start = Instant::now();
        let result = run(&web, 1).await;

        assert_eq!(result, Err(FetchError { id: 3 }));
        assert_eq!(
            start.elapsed(),
            110 * MS,
            "page 3 fails at 110 ms: its error must come back then, not once other jobs \
             are done (awaited in spawn order? or a `?` in the scope's body, which still \
             waits for its jobs, where `unwrap_or_cancel` drops them?)"
        );
        assert_eq!(probe.requests.now(), 0, "no request may outlive the crawl");

        sleep(1000 * MS).await;
        assert_eq!(probe.finished.get(), 2, "page 2 never runs to the end");
    });
}
// ANCHOR_END: error

#[test]
fn an_error_anywhere_comes_back() {
    paused(|| async {
        // 1 links to 2 and 3, 2 links to 4, 4 links to 5. Each page fails in turn, the
        // start page and the deepest one included.
        for failing in 1..=5 {
            let probe = Probe::default();
            let failing_pages = [failing];
            let web = Web::new(
                &probe,
                |id| match id {
                    1 => vec![2, 3],
                    2 => vec![4],
                    4 => vec![5],
                    _ => vec![],
                },
                |id| if id == 3 { 1000 * MS } else { 10 * MS },
            )
            .failing(&failing_pages);

            let start = Instant::now();
            let result = run(&web, 1).await;

            assert_eq!(
                result,
                Err(FetchError { id: failing }),
                "page {failing} failed: its error must reach the caller, not be skipped"
            );
            let depth = match failing {
                1 => 1,
                2 => 2,
                3 => 101, // page 3 takes 1000 ms
                4 => 3,
                _ => 4,
            };
            assert_eq!(
                start.elapsed(),
                depth * 10 * MS,
                "page {failing} fails at {} ms: the crawl must stop then",
                depth * 10
            );
            assert_eq!(probe.requests.now(), 0, "no request may outlive the crawl");
        }
    });
}
