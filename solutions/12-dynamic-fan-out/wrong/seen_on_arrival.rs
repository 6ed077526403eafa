//! Wrong: remembers a page as seen when it arrives, not when it is asked for. Two pages
//! in flight that link to each other, or to the same third page, ask for it twice.
//! expect-fail: every_page_is_fetched_once
//! replaces: crawl

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages: Vec<Page> = Vec::new();
    let mut running = FuturesUnordered::new();
    running.push(site.fetch(start));
    while let Some(result) = running.next().await {
        let page = result?;
        for &link in &page.links {
            if link != start && !pages.iter().any(|seen| seen.id == link) {
                running.push(site.fetch(link));
            }
        }
        pages.push(page);
    }
    Ok(pages)
}
