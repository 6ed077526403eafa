//! Lab 12: a dynamic fan-out in a scope.
//!
//! `crawl` visits a page and every page reachable from it through links. Nobody knows
//! in advance how many pages there are: each page fetched may reveal more. The starter
//! is correct but fetches one page at a time. Make it fetch every known page at once,
//! with a `moro_local::async_scope!`, borrowing the site. Task and hints: README.md.

use std::collections::{HashSet, VecDeque};
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

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
/// Fetches `start` and every page reachable from it, each page once. Returns the
/// pages in the order they arrived, or the first error as soon as it happens.
pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut queue = VecDeque::from([start]);
    while let Some(id) = queue.pop_front() {
        let page = site.fetch(id).await?; // one page at a time
        for &link in &page.links {
            if seen.insert(link) {
                queue.push_back(link);
            }
        }
        pages.push(page);
    }
    Ok(pages)
}
// ANCHOR_END: starter
