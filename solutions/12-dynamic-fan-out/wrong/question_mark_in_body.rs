//! Wrong: the scope's body takes the first error with `?` instead of
//! `unwrap_or_cancel`. Returning from the body does not end a moro-local scope: it
//! still waits for every job it spawned, so the error comes back only once the other
//! requests are done.
//! expect-fail: an_error_comes_back_at_once_and_stops_the_rest, an_error_anywhere_comes_back
//! replaces: crawl

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let pages = RefCell::new(Vec::new());
    moro_local::async_scope!(|scope| {
        let mut seen = HashSet::from([start]);
        let mut running = FuturesUnordered::new();
        running.push(scope.spawn(visit(site, start, &pages)));
        while let Some(result) = running.next().await {
            let links = result?; // the body ends here; the jobs do not
            for link in links {
                if seen.insert(link) {
                    running.push(scope.spawn(visit(site, link, &pages)));
                }
            }
        }
        Ok(())
    })
    .await?;
    Ok(pages.into_inner())
}

async fn visit<S: Site>(
    site: &S,
    id: u32,
    pages: &RefCell<Vec<Page>>,
) -> Result<Vec<u32>, FetchError> {
    let page = site.fetch(id).await?;
    let links = page.links.clone();
    pages.borrow_mut().push(page);
    Ok(links)
}
