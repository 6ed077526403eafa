//! Solution to lab 20: a sharded store.
//!
//! `run` starts one thread per shard, each with its own tokio `LocalRuntime` and its own
//! partition of the data in an `Rc<RefCell<_>>`. Every key has one owner, `shard_for(key)`,
//! and only the owner's thread ever touches the key. A call for a key owned by another
//! shard travels there as a message (owned strings and a oneshot sender for the
//! answer) on that shard's bounded queue; a call for a key this shard owns is served on
//! the spot. The partitions never move and need no lock; the only things that cross threads
//! are the messages and the apps' results.

use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;
use std::thread;

use futures::future::try_join_all;
use tokio::runtime::{Builder, LocalOptions};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};

// ANCHOR: api
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

// ANCHOR: given
// Given: the messages and the queues, as the chapter builds them, so that the lab is about
// who owns what rather than about plumbing. Use them as they are, or change them.

// ANCHOR: request
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

// ANCHOR: queue
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

// ANCHOR: wait
/// The answer to a request sent to `shard`. If the shard drops the request unanswered
/// (it stopped, or panicked while serving it), the oneshot says so: an error, not a hang.
#[allow(dead_code, reason = "given: the starter does not use it yet")]
async fn wait<T>(shard: usize, answer: oneshot::Receiver<T>) -> Result<T, StoreError> {
    answer.await.map_err(|_| StoreError::Down(shard))
}
// ANCHOR_END: wait
// ANCHOR_END: given

// ANCHOR: solution
// ANCHOR: route
/// The shard that owns `key`, out of `shards`: the same answer on every thread.
pub fn shard_for(key: &str, shards: usize) -> usize {
    // `DefaultHasher::new()` always starts from the same keys, so every thread agrees.
    // (A `RandomState` draws its keys at random once per thread: each thread would
    // send the same key to a different shard.)
    let mut hasher = DefaultHasher::new();
    key.hash(&mut hasher);
    (hasher.finish() % shards as u64) as usize
}
// ANCHOR_END: route

// ANCHOR: store
/// One shard's handle on the whole store, given to the app that runs on its thread.
/// It holds this shard's partition and a sender for every shard's queue.
pub struct Store<S> {
    shard: usize,
    partition: Rc<RefCell<S>>,
    queues: Rc<[Queue]>,
}

impl<S> Clone for Store<S> {
    fn clone(&self) -> Self {
        Store {
            shard: self.shard,
            partition: Rc::clone(&self.partition),
            queues: Rc::clone(&self.queues),
        }
    }
}

impl<S: Partition> Store<S> {
    /// The shard this handle lives on.
    pub fn shard(&self) -> usize {
        self.shard
    }

    /// How many shards the store has.
    pub fn shards(&self) -> usize {
        self.queues.len()
    }

    // ANCHOR: calls
    /// The value under `key`.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        let owner = shard_for(key, self.shards());
        if owner == self.shard {
            // The fast path: this thread owns the key. No message, no wait.
            return Ok(self.partition.borrow().get(key));
        }
        let (reply, answer) = oneshot::channel();
        let key = key.to_owned();
        self.send(owner, Request::Get { key, reply })?;
        wait(owner, answer).await
    }

    /// Stores `value` under `key`; returns the value it replaced.
    pub async fn put(&self, key: &str, value: &str) -> Result<Option<String>, StoreError> {
        let owner = shard_for(key, self.shards());
        let (key, value) = (key.to_owned(), value.to_owned());
        if owner == self.shard {
            return Ok(self.partition.borrow_mut().put(key, value));
        }
        let (reply, answer) = oneshot::channel();
        self.send(owner, Request::Put { key, value, reply })?;
        wait(owner, answer).await
    }
    // ANCHOR_END: calls

    // ANCHOR: len
    /// How many keys the whole store holds: every shard's count, added up.
    pub async fn len(&self) -> Result<usize, StoreError> {
        // Scatter: ask every other shard first, so that they all count at once...
        let mut answers = Vec::with_capacity(self.shards());
        for shard in (0..self.shards()).filter(|&shard| shard != self.shard) {
            let (reply, answer) = oneshot::channel();
            self.send(shard, Request::Len { reply })?;
            answers.push(wait(shard, answer));
        }
        // ...count our own partition meanwhile, then gather.
        let here = self.partition.borrow().len();
        let there = try_join_all(answers).await?;
        Ok(here + there.into_iter().sum::<usize>())
    }

    /// Whether the whole store is empty (a `len` like any other).
    pub async fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len().await? == 0)
    }
    // ANCHOR_END: len

    /// Puts a request on `shard`'s queue.
    fn send(&self, shard: usize, request: Request) -> Result<(), StoreError> {
        offer(&self.queues[shard], shard, request)
    }
}

// ANCHOR_END: store

// ANCHOR: serve
/// A shard's loop: serves its queue, in order, one request at a time. It ends when
/// every `Store` handle (every sender) is gone and the queue is empty: whatever was
/// queued is answered first.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    while let Some(request) = queue.recv().await {
        request.serve(partition);
    }
}
// ANCHOR_END: serve

// ANCHOR: run
/// Runs the store: one thread per shard, each with its own runtime, its own partition
/// (`make(shard)`, built on that thread) and its own copy of the app (`app(store)`).
/// Returns the apps' results in shard order once every app has finished, every queue
/// is drained and every thread has ended.
pub fn run<S, M, A, F>(config: &Config, make: M, app: A) -> Result<Vec<F::Output>, StoreError>
where
    S: Partition,
    M: Fn(usize) -> S + Sync,
    A: Fn(Store<S>) -> F + Sync,
    F: Future,
    F::Output: Send,
{
    let (senders, inboxes): (Vec<_>, Vec<_>) =
        (0..config.shards).map(|_| queue(config.queue)).unzip();
    let (make, app) = (&make, &app);
    thread::scope(move |scope| {
        let mut threads = Vec::with_capacity(config.shards);
        for (shard, inbox) in inboxes.into_iter().enumerate() {
            let queues = senders.clone();
            let thread = thread::Builder::new()
                .name(format!("shard-{shard}"))
                .spawn_scoped(scope, move || on_thread(shard, inbox, queues, make, app))
                .expect("start a shard's thread");
            threads.push(thread);
        }
        // Only the shards hold senders now: the queues close when the apps are done.
        drop(senders);
        let mut outputs = Vec::with_capacity(threads.len());
        let mut panicked = None;
        for (shard, thread) in threads.into_iter().enumerate() {
            match thread.join() {
                Ok(output) => outputs.push(output),
                Err(_) => {
                    panicked.get_or_insert(shard);
                }
            }
        }
        match panicked {
            Some(shard) => Err(StoreError::Panicked(shard)),
            None => Ok(outputs),
        }
    })
}
// ANCHOR_END: run

// ANCHOR: thread
/// One shard's thread: its runtime, its partition, its loop and its copy of the app.
fn on_thread<S: Partition, F: Future>(
    shard: usize,
    inbox: Inbox,
    queues: Vec<Queue>,
    make: &impl Fn(usize) -> S,
    app: &impl Fn(Store<S>) -> F,
) -> F::Output {
    let runtime = Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .expect("build the shard's runtime");
    // Built here, used here, dropped here: the partition never moves.
    let partition = Rc::new(RefCell::new(make(shard)));
    let store = Store {
        shard,
        partition: Rc::clone(&partition),
        queues: queues.into(),
    };
    // The app owns this thread's only handle: when the app ends, its senders go, and
    // the loop ends once everyone else's have gone too and the queue is empty.
    runtime.block_on(async {
        let ((), output) = tokio::join!(serve(inbox, &partition), app(store));
        output
    })
}
// ANCHOR_END: thread
// ANCHOR_END: solution

// ANCHOR: outside
/// A handle for threads that are not shards (a server's worker threads, say): every
/// call is a message to the key's owner. It is `Send` and `Sync`, because it holds only
/// the queues' senders.
#[derive(Clone)]
pub struct Client {
    queues: Vec<Queue>,
}

impl Client {
    /// How many shards the store has.
    pub fn shards(&self) -> usize {
        self.queues.len()
    }

    /// The value under `key`.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        let owner = shard_for(key, self.shards());
        let (reply, answer) = oneshot::channel();
        let key = key.to_owned();
        offer(&self.queues[owner], owner, Request::Get { key, reply })?;
        wait(owner, answer).await
    }

    /// Stores `value` under `key`; returns the value it replaced.
    pub async fn put(&self, key: &str, value: &str) -> Result<Option<String>, StoreError> {
        let owner = shard_for(key, self.shards());
        let (reply, answer) = oneshot::channel();
        let (key, value) = (key.to_owned(), value.to_owned());
        offer(
            &self.queues[owner],
            owner,
            Request::Put { key, value, reply },
        )?;
        wait(owner, answer).await
    }
}

/// Like `run`, and meanwhile runs `outside` on the calling thread with a `Client` of the
/// store. The store stops once every app has finished and `outside` has returned (with
/// every clone of its client gone): a server that holds the client stops taking
/// requests first, then the shards drain and stop. Returns the apps' results and
/// `outside`'s.
pub fn run_with<S, M, A, F, O, T>(
    config: &Config,
    make: M,
    app: A,
    outside: O,
) -> Result<(Vec<F::Output>, T), StoreError>
where
    S: Partition,
    M: Fn(usize) -> S + Sync,
    A: Fn(Store<S>) -> F + Sync,
    F: Future,
    F::Output: Send,
    O: FnOnce(Client) -> T,
{
    let (senders, inboxes): (Vec<_>, Vec<_>) =
        (0..config.shards).map(|_| queue(config.queue)).unzip();
    let (make, app) = (&make, &app);
    thread::scope(move |scope| {
        let mut threads = Vec::with_capacity(config.shards);
        for (shard, inbox) in inboxes.into_iter().enumerate() {
            let queues = senders.clone();
            let thread = thread::Builder::new()
                .name(format!("shard-{shard}"))
                .spawn_scoped(scope, move || on_thread(shard, inbox, queues, make, app))
                .expect("start a shard's thread");
            threads.push(thread);
        }
        // The caller's senders become the client: gone when `outside` is done with it.
        let done = outside(Client { queues: senders });
        let mut outputs = Vec::with_capacity(threads.len());
        let mut panicked = None;
        for (shard, thread) in threads.into_iter().enumerate() {
            match thread.join() {
                Ok(output) => outputs.push(output),
                Err(_) => {
                    panicked.get_or_insert(shard);
                }
            }
        }
        match panicked {
            Some(shard) => Err(StoreError::Panicked(shard)),
            None => Ok((outputs, done)),
        }
    })
}
// ANCHOR_END: outside
