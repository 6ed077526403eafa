//! Solution to lab 16: the caching service on a local runtime.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

// ANCHOR: solution
// ANCHOR: backend
/// Where values come from when the cache does not have them. Slow.
pub trait Backend {
    fn load(&self, key: u32) -> impl Future<Output = String>;
}
// ANCHOR_END: backend

/// One request: a key, and where to send its value.
pub struct Request {
    pub key: u32,
    pub reply: oneshot::Sender<String>,
}

/// The service's state: the cached values, and how requests were answered. A request
/// that finds its key here is a hit; any other request is a miss, even if another
/// request is already loading the same key. A request counts when it looks the cache
/// up: a miss stays a miss if its load is stopped, or if its client stops waiting.
#[derive(Debug, Default)]
pub struct Cache {
    pub entries: HashMap<u32, String>,
    pub hits: u64,
    pub misses: u64,
}

// ANCHOR: service
// ANCHOR: serve
/// Serves requests until the channel closes, each one in a local task of its own, and
/// returns once every request has been answered. A task is collected as soon as it ends,
/// so a request's panic comes out of `serve` at once. Dropping the future stops them all.
pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break }; // closed: no more requests
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                tasks.spawn_local(async move {
                    let value = lookup(&*backend, &cache, request.key).await;
                    let _ = request.reply.send(value); // the client may have stopped waiting
                });
            }
            // A finished task leaves the set now: a server that runs for days keeps only
            // the requests in flight, and a panic reaches `serve`'s caller at once. With
            // no task in the set, `join_next` is `None` at once, and `Some(..)` skips it.
            Some(done) = tasks.join_next() => {
                if let Err(error) = done {
                    std::panic::resume_unwind(error.into_panic());
                }
            }
        }
    }
    tasks.join_all().await; // the rest; re-raises a task's panic here
}
// ANCHOR_END: serve

// ANCHOR: lookup
/// The value for `key`: from the cache if it is there, else from the backend, and then
/// it is cached. No borrow of the cache is alive at the `.await`.
async fn lookup<B: Backend>(backend: &B, cache: &RefCell<Cache>, key: u32) -> String {
    if let Some(value) = cached(cache, key) {
        return value;
    }
    let value = backend.load(key).await;
    cache.borrow_mut().entries.insert(key, value.clone());
    value
}

/// Looks `key` up and counts the hit or the miss. Not `async`: the borrow cannot
/// outlive this call.
fn cached(cache: &RefCell<Cache>, key: u32) -> Option<String> {
    let mut cache = cache.borrow_mut();
    let value = cache.entries.get(&key).cloned();
    match value {
        Some(_) => cache.hits += 1,
        None => cache.misses += 1,
    }
    value
}
// ANCHOR_END: lookup
// ANCHOR_END: service
// ANCHOR_END: solution
