//! Wrong: each job takes the `RefCell`'s borrow first and keeps it while it waits for
//! its page. The second job that runs at the same time asks for the same borrow and
//! panics ("RefCell already borrowed"): a `RefCell` borrow must not cross an `.await`.
//! expect-fail: pages_are_fetched_concurrently, thousands_of_links_are_followed_at_once, a_link_is_followed_as_soon_as_it_is_found, every_page_is_fetched_once, pages_come_back_in_the_order_they_arrive, an_error_comes_back_at_once_and_stops_the_rest, an_error_anywhere_comes_back
//! replaces: crawl

pub async fn crawl<S: Site>(site: &S, start: u32) -> Result<Vec<Page>, FetchError> {
    let pages = RefCell::new(Vec::new());
    moro_local::async_scope!(|scope| {
        let mut seen = HashSet::from([start]);
        let mut running = FuturesUnordered::new();
        running.push(scope.spawn(visit(site, start, &pages)));
        while let Some(result) = running.next().await {
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

async fn visit<S: Site>(
    site: &S,
    id: u32,
    pages: &RefCell<Vec<Page>>,
) -> Result<Vec<u32>, FetchError> {
    let mut pages = pages.borrow_mut(); // held across the .await below
    let page = site.fetch(id).await?;
    let links = page.links.clone();
    pages.push(page);
    Ok(links)
}
