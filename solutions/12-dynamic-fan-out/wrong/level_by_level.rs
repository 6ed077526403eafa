//! Wrong: fetches the crawl one level at a time, each level with `try_join_all`.
//! Every page of a level is in flight at once and the first error still stops the
//! level, but a link found early waits for the slowest page of its level.
//! expect-fail: a_link_is_followed_as_soon_as_it_is_found, thousands_of_links_are_followed_at_once, pages_come_back_in_the_order_they_arrive, an_error_anywhere_comes_back
//! replaces: crawl

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut level = vec![start];
    while !level.is_empty() {
        let fetched = futures::future::try_join_all(level.iter().map(|&id| site.fetch(id))).await?;
        level = Vec::new();
        for page in fetched {
            for &link in &page.links {
                if seen.insert(link) {
                    level.push(link);
                }
            }
            pages.push(page);
        }
    }
    Ok(pages)
}
