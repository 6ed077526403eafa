//! Wrong: the bound on a queue is kept by its callers: each shard may have `config.queue`
//! calls in flight to any one shard, and fails the next with `Busy`; the queue itself is
//! made big enough for every caller's share. One caller alone sees the bound it expects;
//! but a stuck shard takes `config.queue` requests from every other shard, the queue
//! grows with the number of callers, and the bound promised is not the bound kept. The
//! backpressure test has three shards call one held shard, four calls each, with a queue
//! of four: twelve get in where four may.
//! expect-fail: a_full_queue_refuses_calls_at_once, len_fails_at_once_when_a_queue_is_full
//! replaces: solution

use std::cell::Cell;

/// The shard that owns `key`, out of `shards`: the same answer on every thread.
pub fn shard_for(key: &str, shards: usize) -> usize {
    // `DefaultHasher::new()` always starts from the same keys, so every thread agrees.
    // (A `RandomState` draws its keys at random once per thread: each thread would
    // send the same key to a different shard.)
    let mut hasher = DefaultHasher::new();
    key.hash(&mut hasher);
    (hasher.finish() % shards as u64) as usize
}

/// One shard's handle on the whole store, given to the app that runs on its thread.
/// It holds this shard's partition and a sender for every shard's queue.
pub struct Store<S> {
    shard: usize,
    partition: Rc<RefCell<S>>,
    queues: Rc<[Queue]>,
    /// This shard's calls in flight to each shard, and how many it may have: its share
    /// of a queue.
    in_flight: Rc<[Cell<usize>]>,
    share: usize,
}

impl<S> Clone for Store<S> {
    fn clone(&self) -> Self {
        Store {
            shard: self.shard,
            partition: Rc::clone(&self.partition),
            queues: Rc::clone(&self.queues),
            in_flight: Rc::clone(&self.in_flight),
            share: self.share,
        }
    }
}

/// A call in flight from this shard; gives its place back when dropped.
struct InFlight<'a>(&'a Cell<usize>);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
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

    /// The value under `key`.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        let owner = shard_for(key, self.shards());
        if owner == self.shard {
            // The fast path: this thread owns the key. No message, no wait.
            return Ok(self.partition.borrow().get(key));
        }
        let (reply, answer) = oneshot::channel();
        let key = key.to_owned();
        let _in_flight = self.take(owner)?;
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
        let _in_flight = self.take(owner)?;
        self.send(owner, Request::Put { key, value, reply })?;
        wait(owner, answer).await
    }

    /// How many keys the whole store holds: every shard's count, added up.
    pub async fn len(&self) -> Result<usize, StoreError> {
        // Scatter: ask every other shard first, so that they all count at once...
        let mut answers = Vec::with_capacity(self.shards());
        for shard in (0..self.shards()).filter(|&shard| shard != self.shard) {
            let (reply, answer) = oneshot::channel();
            let in_flight = self.take(shard)?;
            self.send(shard, Request::Len { reply })?;
            answers.push(async move {
                let _in_flight = in_flight;
                wait(shard, answer).await
            });
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

    /// A place for one more call to `shard`, if this shard has not used up its share.
    fn take(&self, shard: usize) -> Result<InFlight<'_>, StoreError> {
        let count = &self.in_flight[shard];
        if count.get() >= self.share {
            return Err(StoreError::Busy(shard));
        }
        count.set(count.get() + 1);
        Ok(InFlight(count))
    }

    /// Puts a request on `shard`'s queue.
    fn send(&self, shard: usize, request: Request) -> Result<(), StoreError> {
        offer(&self.queues[shard], shard, request)
    }
}

/// A shard's loop: serves its queue, in order, one request at a time. It ends when
/// every `Store` handle (every sender) is gone and the queue is empty: whatever was
/// queued is answered first.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    while let Some(request) = queue.recv().await {
        request.serve(partition);
    }
}

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
    // Room for every shard's share: each may have config.queue calls in flight to any
    // shard, so a queue must hold that many for every caller.
    let (senders, inboxes): (Vec<_>, Vec<_>) = (0..config.shards)
        .map(|_| queue(config.queue * config.shards))
        .unzip();
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
    // Each shard's share: what its queues hold, split between the shards.
    let share = queues[0].max_capacity() / queues.len();
    let store = Store {
        shard,
        partition: Rc::clone(&partition),
        in_flight: queues.iter().map(|_| Cell::new(0)).collect(),
        queues: queues.into(),
        share,
    };
    // The app owns this thread's only handle: when the app ends, its senders go, and
    // the loop ends once everyone else's have gone too and the queue is empty.
    runtime.block_on(async {
        let ((), output) = tokio::join!(serve(inbox, &partition), app(store));
        output
    })
}
