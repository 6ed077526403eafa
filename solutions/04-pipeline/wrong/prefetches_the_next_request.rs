//! Wrong: a window made by hand that keeps `limit` requests running and the next one
//! already created, "to have it ready". Polled only when a slot frees, the spare never
//! counts with a source whose work starts at the first poll; with a client that sends
//! the request when `fetch` is called, `limit + 1` are in flight.
//! expect-fail: fetch_is_called_only_when_a_slot_is_free
//! replaces: as_ready

pub async fn fetch_as_ready<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut running = futures::stream::FuturesUnordered::new();
    let mut requests = ids.iter().map(|&id| source.fetch(id)).peekable();
    let mut items = Vec::with_capacity(ids.len());
    loop {
        while running.len() < limit {
            match requests.next() {
                Some(request) => running.push(request),
                None => break,
            }
        }
        // The next request, created now so that it is ready when a slot frees.
        let _ = requests.peek();
        match running.next().await {
            Some(item) => items.push(item),
            None => return items,
        }
    }
}
