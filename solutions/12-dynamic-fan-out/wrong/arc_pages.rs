//! Wrong in its lesson, right in its tests: the scope is right, but the pages live in
//! an `Arc<RefCell<…>>`, cloned into every job, as if the jobs were spawned tasks. A
//! scope's jobs may borrow what was declared before it; the `Arc` buys nothing. The
//! tests cannot see it; the lab's `forbid` list can.
//! expect-lesson: Arc
//! replaces: crawl

use std::sync::Arc;

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let pages = Arc::new(RefCell::new(Vec::new()));
    moro_local::async_scope!(|scope| {
        let mut seen = HashSet::from([start]);
        let mut running = FuturesUnordered::new();
        running.push(scope.spawn(visit(site, start, Arc::clone(&pages))));
        while let Some(result) = running.next().await {
            let links = result.unwrap_or_cancel(scope).await;
            for link in links {
                if seen.insert(link) {
                    running.push(scope.spawn(visit(site, link, Arc::clone(&pages))));
                }
            }
        }
        Ok(())
    })
    .await?;
    Ok(pages.take())
}

async fn visit<S: Site>(
    site: &S,
    id: u32,
    pages: Arc<RefCell<Vec<Page>>>,
) -> Result<Vec<u32>, FetchError> {
    let page = site.fetch(id).await?;
    let links = page.links.clone();
    pages.borrow_mut().push(page);
    Ok(links)
}
