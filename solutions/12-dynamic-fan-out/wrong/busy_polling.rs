//! Wrong: checks every request without waiting (`now_or_never`), then yields and checks
//! again, round after round. No request's waker is ever used: the task is always ready
//! to run, so tokio's paused clock never moves and no request ever finishes. Without
//! the tests' poll budget it would hang them; with it, each fails and says "busy polling".
//! expect-fail: pages_are_fetched_concurrently, thousands_of_links_are_followed_at_once, a_link_is_followed_as_soon_as_it_is_found, every_page_is_fetched_once, pages_come_back_in_the_order_they_arrive, a_single_page_is_a_crawl_too, an_error_comes_back_at_once_and_stops_the_rest, an_error_anywhere_comes_back
//! replaces: crawl

use futures::FutureExt;

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut running = vec![Box::pin(site.fetch(start))];
    while !running.is_empty() {
        let mut still_running = Vec::new();
        for mut request in running {
            match (&mut request).now_or_never() {
                Some(result) => {
                    let page = result?;
                    for &link in &page.links {
                        if seen.insert(link) {
                            still_running.push(Box::pin(site.fetch(link)));
                        }
                    }
                    pages.push(page);
                }
                None => still_running.push(request),
            }
        }
        running = still_running;
        tokio::task::yield_now().await; // "let the others run", then look again
    }
    Ok(pages)
}
