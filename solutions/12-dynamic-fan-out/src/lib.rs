//! Solution to lab 12: a dynamic fan-out in a scope.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

/// A page: its id and the ids it links to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub id: u32,
    pub links: Vec<u32>,
}

/// The site could not serve page `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    pub id: u32,
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "could not fetch page {}", self.id)
    }
}

impl std::error::Error for FetchError {}

/// Whatever `crawl` talks to. The tests implement it with `Rc`, `Cell` and `RefCell`.
pub trait Site {
    fn fetch(&self, id: u32) -> impl Future<Output = Result<Page, FetchError>>;
}

// ANCHOR: solution
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use moro_local::prelude::UnwrapOrCancel;

// ANCHOR: crawl
/// Fetches `start` and every page reachable from it, each page once. Returns the
/// pages in the order they arrived, or the first error as soon as it happens.
pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    // Filled by the jobs as pages arrive. It is declared before the scope, so the
    // jobs may borrow it; the scope ends before it does.
    let pages = RefCell::new(Vec::new());

    moro_local::async_scope!(|scope| {
        let mut seen = HashSet::from([start]);
        // Handles of the running jobs; each one yields the links its page holds.
        let mut running = FuturesUnordered::new();
        running.push(scope.spawn(visit(site, start, &pages)));

        // Only the body spawns: a job that called `scope.spawn` would panic.
        while let Some(result) = running.next().await {
            // An error ends the scope with that error; the other jobs are dropped.
            let links = result.unwrap_or_cancel(scope).await;
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

/// One job: fetch a page, record it, and hand its links back to the body.
async fn visit<S: Site>(
    site: &S,
    id: u32,
    pages: &RefCell<Vec<Page>>,
) -> Result<Vec<u32>, FetchError> {
    let page = site.fetch(id).await?;
    let links = page.links.clone();
    pages.borrow_mut().push(page); // no `.await` while borrowed
    Ok(links)
}
// ANCHOR_END: crawl
// ANCHOR_END: solution
