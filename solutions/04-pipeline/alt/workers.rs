//! Also right, for `fetch_as_ready`: `limit` workers on one task, each taking the next
//! id from a shared iterator in a `RefCell` and pushing its item when it arrives.
//! expect-pass
//! replaces: as_ready

pub async fn fetch_as_ready<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let queue = std::cell::RefCell::new(ids.iter());
    let out = std::cell::RefCell::new(Vec::new());
    let workers = (0..limit).map(|_| async {
        loop {
            let next = queue.borrow_mut().next().copied();
            let Some(id) = next else { break };
            let item = source.fetch(id).await;
            out.borrow_mut().push(item);
        }
    });
    futures::future::join_all(workers).await;
    out.into_inner()
}
