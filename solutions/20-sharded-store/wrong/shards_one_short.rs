//! Wrong: each `Store` keeps senders to the other shards only ("a shard never messages
//! itself, and a sender to its own queue is one more handle to drop"), maps shard numbers to
//! places in that list correctly everywhere, and routes by the true shard count; but
//! `shards()` returns how many senders it holds, one less than the store has. An app that
//! sizes its work by `shards()` leaves a shard out. The ownership test asks every shard of
//! four how many shards there are.
//! expect-fail: every_key_is_served_by_its_owner_and_seen_by_every_shard
//! replaces: solution

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
/// It holds this shard's partition and a sender for every OTHER shard's queue: a shard never
/// sends itself a message, so it needs no sender to its own queue.
pub struct Store<S> {
    shard: usize,
    /// The store's shards, for routing.
    count: usize,
    partition: Rc<RefCell<S>>,
    /// Shard `s`'s queue at `s` below this shard, at `s - 1` above it.
    others: Rc<[Queue]>,
}

impl<S> Clone for Store<S> {
    fn clone(&self) -> Self {
        Store {
            shard: self.shard,
            count: self.count,
            partition: Rc::clone(&self.partition),
            others: Rc::clone(&self.others),
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
        self.others.len()
    }

    /// The value under `key`.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        let owner = shard_for(key, self.count);
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
        let owner = shard_for(key, self.count);
        let (key, value) = (key.to_owned(), value.to_owned());
        if owner == self.shard {
            return Ok(self.partition.borrow_mut().put(key, value));
        }
        let (reply, answer) = oneshot::channel();
        self.send(owner, Request::Put { key, value, reply })?;
        wait(owner, answer).await
    }

    /// How many keys the whole store holds: every shard's count, added up.
    pub async fn len(&self) -> Result<usize, StoreError> {
        // Scatter: ask every other shard first, so that they all count at once...
        let mut answers = Vec::with_capacity(self.count);
        for shard in (0..self.count).filter(|&shard| shard != self.shard) {
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

    /// Puts a request on `shard`'s queue.
    fn send(&self, shard: usize, request: Request) -> Result<(), StoreError> {
        let at = if shard < self.shard { shard } else { shard - 1 };
        offer(&self.others[at], shard, request)
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
    let count = queues.len();
    let mut others = queues;
    // This shard's own sender goes: only the other shards' are kept.
    drop(others.remove(shard));
    let store = Store {
        shard,
        count,
        partition: Rc::clone(&partition),
        others: others.into(),
    };
    // The app owns this thread's only handle: when the app ends, its senders go, and
    // the loop ends once everyone else's have gone too and the queue is empty.
    runtime.block_on(async {
        let ((), output) = tokio::join!(serve(inbox, &partition), app(store));
        output
    })
}
