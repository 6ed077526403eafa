//! Wrong: a crawl written by hand that polls every request with a waker of its own
//! (`Waker::noop()`) and looks again every millisecond, on an interval. The requests'
//! timers wake nobody; the interval wakes the crawl instead, so each page is seen
//! within a millisecond of arriving. The tests count the polls: 300 ms of crawling cost
//! about 300 of them, where a crawl woken by its requests needs about 10.
//! expect-fail: pages_are_fetched_concurrently, thousands_of_links_are_followed_at_once, a_link_is_followed_as_soon_as_it_is_found, pages_come_back_in_the_order_they_arrive, a_single_page_is_a_crawl_too, an_error_comes_back_at_once_and_stops_the_rest, an_error_anywhere_comes_back
//! replaces: crawl

use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut requests: Vec<Pin<Box<_>>> = vec![Box::pin(site.fetch(start))];
    let mut quiet = Context::from_waker(Waker::noop());
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    while !requests.is_empty() {
        tick.tick().await; // "look again in a millisecond"
        let mut i = 0;
        while i < requests.len() {
            let Poll::Ready(result) = requests[i].as_mut().poll(&mut quiet) else {
                i += 1;
                continue;
            };
            drop(requests.swap_remove(i));
            let page = result?;
            for &link in &page.links {
                if seen.insert(link) {
                    requests.push(Box::pin(site.fetch(link)));
                }
            }
            pages.push(page);
        }
    }
    Ok(pages)
}
