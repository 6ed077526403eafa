//! Lab 20: a sharded store.
//!
//! `run` starts a key-value store and runs one copy of an app per shard. The starter
//! does it the work-stealing way: one map behind one `Arc<Mutex<_>>`, shared by apps
//! that are `tokio::spawn`ed on a multi-thread runtime.
//!
//! The tests hand `run` a slice that is not `Send` (it holds an `Rc`) and that borrows
//! from the test, and apps that keep `!Send` values across `.await`. Make them compile
//! and pass: one thread per shard, each with its own local runtime and its own slice in
//! an `Rc<RefCell<_>>`; every key owned by one shard; calls to other shards sent as
//! messages on bounded queues; no `Arc`, no `Mutex`, no `tokio::spawn`, no `'static`.
//! Task and hints: README.md next to this file.

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::sync::{Arc, Mutex};

// ANCHOR: api
/// How many shards, and how many requests each shard's queue holds.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Shards: one thread each, with its own runtime and its own slice of the data.
    pub shards: usize,
    /// Requests one shard's queue holds. A call to a shard whose queue is full fails at
    /// once with `StoreError::Busy`: it is shed, not queued.
    pub queue: usize,
}

/// One shard's slice of the data. `run` builds one per shard, on that shard's thread,
/// and it never leaves that thread, so it need not be `Send`.
pub trait Slice {
    fn get(&self, key: &str) -> Option<String>;
    /// Stores `value` under `key` and returns the value it replaces.
    fn put(&mut self, key: String, value: String) -> Option<String>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Slice for HashMap<String, String> {
    fn get(&self, key: &str) -> Option<String> {
        HashMap::get(self, key).cloned()
    }
    fn put(&mut self, key: String, value: String) -> Option<String> {
        self.insert(key, value)
    }
    fn len(&self) -> usize {
        HashMap::len(self)
    }
}

/// Why a call (or `run`) failed. The number is the shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The shard's queue was full. The call was refused at once and did nothing.
    Busy(usize),
    /// The shard has stopped (it panicked). The call was not served, or its answer was
    /// lost with the shard.
    Down(usize),
    /// From `run`: this shard's thread panicked (the lowest-numbered, if several did).
    Panicked(usize),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Busy(shard) => write!(f, "shard {shard} is busy: its queue is full"),
            StoreError::Down(shard) => write!(f, "shard {shard} has stopped"),
            StoreError::Panicked(shard) => write!(f, "shard {shard} panicked"),
        }
    }
}

impl Error for StoreError {}
// ANCHOR_END: api

// ANCHOR: starter
/// The shard that owns `key`, out of `shards`: the same answer on every thread.
pub fn shard_for(key: &str, shards: usize) -> usize {
    let _ = (key, shards);
    todo!("route a key to its shard, the same way on every thread")
}

/// One app's handle on the store.
pub struct Store<S> {
    shard: usize,
    shards: usize,
    map: Arc<Mutex<S>>,
}

impl<S: Slice> Store<S> {
    /// The shard this handle lives on.
    pub fn shard(&self) -> usize {
        self.shard
    }

    /// How many shards the store has.
    pub fn shards(&self) -> usize {
        self.shards
    }

    /// The value under `key`.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.map.lock().unwrap().get(key))
    }

    /// Stores `value` under `key`; returns the value it replaced.
    pub async fn put(&self, key: &str, value: &str) -> Result<Option<String>, StoreError> {
        let mut map = self.map.lock().unwrap();
        Ok(map.put(key.to_owned(), value.to_owned()))
    }

    /// How many keys the whole store holds.
    pub async fn len(&self) -> Result<usize, StoreError> {
        Ok(self.map.lock().unwrap().len())
    }

    /// Whether the whole store is empty.
    pub async fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len().await? == 0)
    }
}

/// Runs the store and one copy of the app per shard (`app(store)`); returns the apps'
/// results in shard order once they have all finished.
pub fn run<S, M, A, F>(config: &Config, make: M, app: A) -> Result<Vec<F::Output>, StoreError>
where
    S: Slice + Send + 'static,
    M: Fn(usize) -> S,
    A: Fn(Store<S>) -> F,
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.shards)
        .enable_all()
        .build()
        .expect("build the runtime");
    // One map for everyone, behind one lock.
    let map = Arc::new(Mutex::new(make(0)));
    runtime.block_on(async {
        let apps: Vec<_> = (0..config.shards)
            .map(|shard| {
                let map = Arc::clone(&map);
                let shards = config.shards;
                tokio::spawn(app(Store { shard, shards, map }))
            })
            .collect();
        let mut outputs = Vec::with_capacity(apps.len());
        for (shard, app) in apps.into_iter().enumerate() {
            outputs.push(app.await.map_err(|_| StoreError::Panicked(shard))?);
        }
        Ok(outputs)
    })
}
// ANCHOR_END: starter
