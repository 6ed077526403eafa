//! Lab 20: a sharded store.
//!
//! `run` starts a key-value store and runs one copy of an app per shard. The starter
//! does it the work-stealing way: one map behind one `Arc<Mutex<_>>`, shared by apps
//! that are `tokio::spawn`ed on a multi-thread runtime.
//!
//! The tests hand `run` a partition that is not `Send` (it holds an `Rc`) and that borrows
//! from the test, and apps that keep `!Send` values across `.await`. Make them compile
//! and pass: one thread per shard, each with its own local runtime and its own partition in
//! an `Rc<RefCell<_>>`; every key owned by one shard; calls to other shards sent as
//! messages on bounded queues; no `Arc`, no `Mutex`, no `tokio::spawn`, no `'static`.
//! The messages and the queues are given, below the public part: your work is the rest.
//! Task and hints: README.md next to this file.

use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};

// ANCHOR: api (the book quotes the code from here to the ANCHOR_END line)
/// How many shards, and how many requests each shard's queue holds.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Shards: one thread each, with its own runtime and its own partition of the data.
    pub shards: usize,
    /// Requests one shard's queue holds. A call to a shard whose queue is full fails at
    /// once with `StoreError::Busy`: it is shed, not queued.
    pub queue: usize,
}

/// One shard's partition of the data. `run` builds one per shard, on that shard's thread,
/// and it never leaves that thread, so it need not be `Send`.
pub trait Partition {
    fn get(&self, key: &str) -> Option<String>;
    /// Stores `value` under `key` and returns the value it replaces.
    fn put(&mut self, key: String, value: String) -> Option<String>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Partition for HashMap<String, String> {
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

// ANCHOR: given (given code: keep it as it is; `cargo labs check` compares it)
// Given: the messages and the queues, as the chapter builds them, so that the lab is about
// who owns what rather than about plumbing. Use them as they are, or change them.

// ANCHOR: request (the book quotes the code from here to the ANCHOR_END line)
/// What travels to a shard: owned data, and a oneshot sender for the answer. All of it
/// is `Send`; the partition itself never travels.
#[allow(dead_code, reason = "given: the starter does not use it yet")]
enum Request {
    Get {
        key: String,
        reply: oneshot::Sender<Option<String>>,
    },
    Put {
        key: String,
        value: String,
        reply: oneshot::Sender<Option<String>>,
    },
    Len {
        reply: oneshot::Sender<usize>,
    },
}

#[allow(dead_code, reason = "given: the starter does not use it yet")]
impl Request {
    /// Serves the request on the owner's partition and sends the answer. A caller that
    /// stopped waiting has dropped its receiver: that answer goes nowhere, which is fine.
    fn serve(self, partition: &RefCell<impl Partition>) {
        match self {
            Request::Get { key, reply } => {
                let _ = reply.send(partition.borrow().get(&key));
            }
            Request::Put { key, value, reply } => {
                let _ = reply.send(partition.borrow_mut().put(key, value));
            }
            Request::Len { reply } => {
                let _ = reply.send(partition.borrow().len());
            }
        }
    }
}
// ANCHOR_END: request

// ANCHOR: queue (the book quotes the code from here to the ANCHOR_END line)
/// The sending end of a shard's queue, and the shard's end.
#[allow(dead_code, reason = "given: the starter does not use it yet")]
type Queue = mpsc::Sender<Request>;
#[allow(dead_code, reason = "given: the starter does not use it yet")]
type Inbox = mpsc::Receiver<Request>;

/// A shard's queue: bounded, so a shard that falls behind cannot take in requests
/// without limit.
#[allow(dead_code, reason = "given: the starter does not use it yet")]
fn queue(capacity: usize) -> (Queue, Inbox) {
    mpsc::channel(capacity)
}

/// Puts a request on `shard`'s queue, or says at once why it cannot: the queue is full
/// (the call is shed), or closed (the shard has stopped).
#[allow(dead_code, reason = "given: the starter does not use it yet")]
fn offer(queue: &Queue, shard: usize, request: Request) -> Result<(), StoreError> {
    queue.try_send(request).map_err(|error| match error {
        TrySendError::Full(_) => StoreError::Busy(shard),
        TrySendError::Closed(_) => StoreError::Down(shard),
    })
}
// ANCHOR_END: queue

// ANCHOR: wait (the book quotes the code from here to the ANCHOR_END line)
/// The answer to a request sent to `shard`. If the shard drops the request unanswered
/// (it stopped, or panicked while serving it), the oneshot says so: an error, not a hang.
#[allow(dead_code, reason = "given: the starter does not use it yet")]
async fn wait<T>(shard: usize, answer: oneshot::Receiver<T>) -> Result<T, StoreError> {
    answer.await.map_err(|_| StoreError::Down(shard))
}
// ANCHOR_END: wait
// ANCHOR_END: given

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
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

impl<S: Partition> Store<S> {
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
    S: Partition + Send + 'static,
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
