//! Wrong: a page that fails is treated as a page without links, so the crawl goes on
//! and answers `Ok` with the pages it could get. The caller never learns of the error.
//! expect-fail: an_error_comes_back_at_once_and_stops_the_rest, an_error_anywhere_comes_back
//! replaces: crawl

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut running = FuturesUnordered::new();
    running.push(site.fetch(start));
    while let Some(result) = running.next().await {
        let Ok(page) = result else { continue }; // skip the failed page
        for &link in &page.links {
            if seen.insert(link) {
                running.push(site.fetch(link));
            }
        }
        pages.push(page);
    }
    Ok(pages)
}
