//! Wrong: remembers every link it follows, but not the page it started from, so a link
//! back to the start page fetches it again (and everything it links to is seen
//! already, so only that one page is asked twice).
//! expect-fail: every_page_is_fetched_once
//! replaces: crawl

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::new();
    let mut running = FuturesUnordered::new();
    running.push(site.fetch(start));
    while let Some(result) = running.next().await {
        let page = result?;
        for &link in &page.links {
            if seen.insert(link) {
                running.push(site.fetch(link));
            }
        }
        pages.push(page);
    }
    Ok(pages)
}
