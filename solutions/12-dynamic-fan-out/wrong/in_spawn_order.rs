//! Wrong: a scope whose body keeps the handles in a queue and awaits them in the order
//! it spawned them. Every known page is in flight at once, but the body hears about a
//! quick page only once the slow pages spawned before it are done: its links wait.
//! expect-fail: a_link_is_followed_as_soon_as_it_is_found, thousands_of_links_are_followed_at_once, pages_come_back_in_the_order_they_arrive, an_error_comes_back_at_once_and_stops_the_rest, an_error_anywhere_comes_back
//! replaces: crawl

use std::collections::VecDeque;

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    moro_local::async_scope!(|scope| {
        let mut pages = Vec::new();
        let mut seen = HashSet::from([start]);
        let mut running = VecDeque::from([scope.spawn(site.fetch(start))]);
        while let Some(job) = running.pop_front() {
            let page = job.await.unwrap_or_cancel(scope).await;
            for &link in &page.links {
                if seen.insert(link) {
                    running.push_back(scope.spawn(site.fetch(link)));
                }
            }
            pages.push(page);
        }
        Ok(pages)
    })
    .await
}
