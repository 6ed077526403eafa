//! Also right: no scope and no set of running requests, but a recursion. Each visit
//! fetches its page, then joins the visits of its new links with `try_join_all`; the
//! joins nest like the crawl does. The first error unwinds every join above it, and
//! each join drops its other branches on the way.
//! expect-pass
//! replaces: crawl

use futures::future::LocalBoxFuture;

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let seen = RefCell::new(HashSet::from([start]));
    let pages = RefCell::new(Vec::new());
    visit(site, start, &seen, &pages).await?;
    Ok(pages.into_inner())
}

fn visit<'a, S: Site>(
    site: &'a S,
    id: u32,
    seen: &'a RefCell<HashSet<u32>>,
    pages: &'a RefCell<Vec<Page>>,
) -> LocalBoxFuture<'a, Result<(), FetchError>> {
    Box::pin(async move {
        let page = site.fetch(id).await?;
        let new: Vec<u32> = (page.links.iter().copied())
            .filter(|&link| seen.borrow_mut().insert(link))
            .collect();
        pages.borrow_mut().push(page);
        let visits = new.into_iter().map(|link| visit(site, link, seen, pages));
        futures::future::try_join_all(visits).await?;
        Ok(())
    })
}
