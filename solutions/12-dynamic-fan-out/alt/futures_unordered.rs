//! Also right: the same crawl with a bare `FuturesUnordered` and no scope. Here the
//! body polls the set all the time, so the requests make progress without a scope;
//! leaving the function drops the set, and with it every request still running.
//! expect-pass
//! replaces: crawl

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut running = FuturesUnordered::new();
    running.push(site.fetch(start));
    while let Some(result) = running.next().await {
        let page = result?; // returning drops `running`: the other requests stop
        for &link in &page.links {
            if seen.insert(link) {
                running.push(site.fetch(link));
            }
        }
        pages.push(page);
    }
    Ok(pages)
}
