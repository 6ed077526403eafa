//! Wrong: "be polite to the site": at most 8 requests at a time, the rest wait in a
//! queue. The small crawls never reach 8; 2500 links do.
//! expect-fail: thousands_of_links_are_followed_at_once
//! replaces: crawl

use std::collections::VecDeque;

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    const LIMIT: usize = 8;
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut waiting = VecDeque::from([start]);
    let mut running = FuturesUnordered::new();
    loop {
        while running.len() < LIMIT
            && let Some(id) = waiting.pop_front()
        {
            running.push(site.fetch(id));
        }
        let Some(result) = running.next().await else {
            return Ok(pages);
        };
        let page = result?;
        for &link in &page.links {
            if seen.insert(link) {
                waiting.push_back(link);
            }
        }
        pages.push(page);
    }
}
