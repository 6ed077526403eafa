//! Wrong: the crawl is right, but `S: 'static` stayed in the signature. The tests' site
//! borrows the test's probe, so the bound refuses it.
//! expect-error: E0521
//! replaces: crawl

pub async fn crawl<S: Site + 'static>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
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
