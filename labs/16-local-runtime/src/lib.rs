//! Lab 16: a local runtime.
//!
//! `serve` is a small caching service. It takes requests from a channel and answers each
//! one from a cache or, on a miss, from a slow backend, counting hits and misses. It was
//! written for tokio's multi-thread runtime: the cache is an `Arc<Mutex<_>>`, the backend
//! must be `Send + Sync`, and every request is a `tokio::spawn`ed task.
//!
//! The tests run it on a `LocalRuntime`, on one thread. They hand it the cache as an
//! `Rc<RefCell<Cache>>`, and a backend whose futures keep an `Rc` across `.await`. Make
//! them compile and pass with no `Arc`, no `Mutex`, no `Send` and no `tokio::spawn`, and
//! with no `RefCell` borrow alive across an `.await`. Task and hints: README.md next to
//! this file.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};

// ANCHOR: types (the book quotes the code from here to the ANCHOR_END line)
/// Where values come from when the cache does not have them. Slow.
pub trait Backend {
    fn load(&self, key: u32) -> impl Future<Output = String> + Send;
}

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
// ANCHOR_END: types

// ANCHOR: serve (the book quotes the code from here to the ANCHOR_END line)
/// Serves requests until the channel closes, each one in a task of its own, and returns
/// once every request has been answered.
pub async fn serve<B>(backend: B, cache: Arc<Mutex<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + Send + Sync + 'static,
{
    let backend = Arc::new(backend);
    let mut tasks = Vec::new();
    while let Some(request) = requests.recv().await {
        let backend = Arc::clone(&backend);
        let cache = Arc::clone(&cache);
        tasks.push(tokio::spawn(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value); // the client may have stopped waiting
        }));
    }
    for task in tasks {
        task.await.expect("a request panicked");
    }
}
// ANCHOR_END: serve

// ANCHOR: lookup (the book quotes the code from here to the ANCHOR_END line)
/// The value for `key`: from the cache if it is there, else from the backend, and then
/// it is cached.
async fn lookup<B: Backend>(backend: &B, cache: &Mutex<Cache>, key: u32) -> String {
    {
        let mut cache = cache.lock().unwrap();
        if let Some(value) = cache.entries.get(&key).cloned() {
            cache.hits += 1;
            return value;
        }
        cache.misses += 1;
    } // the guard ends here: a std `MutexGuard` alive across `.await` is not `Send`
    let value = backend.load(key).await;
    cache.lock().unwrap().entries.insert(key, value.clone());
    value
}
// ANCHOR_END: lookup
