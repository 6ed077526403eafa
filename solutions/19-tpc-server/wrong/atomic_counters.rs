//! Wrong (passes every test, breaks the lesson): the workers' counters are atomics, made
//! by `run` and reachable by every worker, "so that `run` can read them at the end". No
//! `Arc` (the threads are scoped) and no lock, and the numbers are right. But each counter
//! belongs to one worker, which alone adds to it, on one thread: a `Cell` does that, and
//! the worker hands its stats back when it ends. An atomic says the state is shared
//! between threads when it is not, and pays for it on every request. The runner refuses
//! atomics in this lab.
//! expect-lesson: atomics
//! replaces: solution

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One worker's counters, which any thread may add to.
#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    requests: AtomicU64,
    rejected: AtomicU64,
}

impl Counters {
    fn stats(&self) -> WorkerStats {
        WorkerStats {
            connections: self.connections.load(Relaxed),
            requests: self.requests.load(Relaxed),
            rejected: self.rejected.load(Relaxed),
        }
    }
}

impl Server {
    /// Serves until `shutdown` completes, then finishes the requests in flight and
    /// returns what every worker did, in worker order. `handlers(id)` builds worker
    /// `id`'s handler on that worker's thread; it may borrow from the caller.
    pub fn run<H, F>(
        self,
        handlers: F,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<Vec<WorkerStats>>
    where
        H: Handler,
        F: Fn(usize) -> H + Sync,
    {
        let Server { listener, config } = self;
        if config.workers == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no workers"));
        }
        let (config, handlers) = (&config, &handlers);
        // Every worker's counters, in one place that every worker can reach.
        let counters: Vec<Counters> = (0..config.workers).map(|_| Counters::default()).collect();
        let counters = &counters;
        let mut listeners = own_listeners(listener, config)?;
        thread::scope(|threads| {
            let mut hands = Vec::with_capacity(config.workers);
            let mut workers = Vec::with_capacity(config.workers);
            for id in 0..config.workers {
                // The hand-off: the only thing that crosses threads is a socket.
                let (hand, inbox) = mpsc::unbounded_channel();
                hands.push(hand);
                let own = listeners.own.pop_front().flatten();
                let worker = thread::Builder::new()
                    .name(format!("worker-{id}"))
                    .spawn_scoped(threads, move || -> io::Result<WorkerStats> {
                        let runtime = Builder::new_current_thread()
                            .enable_all()
                            .build_local(LocalOptions::default())?;
                        let handler = handlers(id);
                        // One task holds all of this worker's connections, so tokio's
                        // budget (128 operations per poll of a task) would be shared by
                        // all of them, and the ones it runs out on would wait behind the
                        // rest: see "Thread-per-core, measured", "One task, one budget".
                        let worker = tokio::task::coop::unconstrained(worker(
                            inbox,
                            own,
                            &handler,
                            config,
                            &counters[id],
                        ));
                        runtime.block_on(worker);
                        Ok(counters[id].stats())
                    })?;
                workers.push(worker);
            }
            let accepted = accept(listeners.shared, hands, shutdown);
            // Every worker thread is joined before `run` returns: nothing outlives it.
            let mut stats = Vec::with_capacity(workers.len());
            for worker in workers {
                match worker.join() {
                    Ok(done) => stats.push(done?),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            accepted.map(|()| stats)
        })
    }
}

/// The acceptor, on the calling thread: deals connections round-robin until
/// `shutdown` completes. It runs on a runtime of its own, which it drops before the
/// workers hear that it stopped (they see their inbox close).
fn accept(
    listener: Option<Listening>,
    hands: Vec<mpsc::UnboundedSender<Handed>>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let runtime = Builder::new_current_thread().enable_all().build()?;
    let accepted = runtime.block_on(async {
        let mut shutdown = pin!(shutdown);
        let Some(listener) = listener else {
            // SO_REUSEPORT: the workers accept for themselves.
            shutdown.await;
            return Ok(());
        };
        let listener = listener.listen()?;
        for next in (0..hands.len()).cycle() {
            let stream = loop {
                tokio::select! {
                    biased;
                    () = &mut shutdown => return Ok(()),
                    accepted = listener.accept() => match accepted {
                        Ok(stream) => break stream,
                        // A failed accept is not the end of the server: say so, and
                        // accept again.
                        Err(error) => pause_after(&error).await,
                    },
                }
            };
            if let Ok(stream) = leave(stream) {
                // A worker that has gone (it failed to start) loses its turn.
                let _ = hands[next].send(stream);
            }
        }
        Ok(())
    });
    drop(runtime);
    drop(hands);
    accepted
}

/// What travels from the acceptor to a worker: a socket that belongs to no runtime.
type Handed = std::net::TcpStream;

/// On the acceptor's runtime: leave its reactor. The std stream stays non-blocking.
fn leave(stream: TcpStream) -> io::Result<Handed> {
    stream.into_std()
}

/// On the worker's runtime: join its reactor, so this worker alone drives the stream.
fn join(stream: Handed) -> io::Result<TcpStream> {
    TcpStream::from_std(stream)
}

/// One worker: serves the connections it is handed (or accepts on its own listener)
/// until its inbox closes, then stops every connection gracefully and waits for them.
async fn worker<H: Handler>(
    mut inbox: mpsc::UnboundedReceiver<Handed>,
    own: Option<std::net::TcpListener>,
    handler: &H,
    config: &Config,
    stats: &Counters,
) {
    let open = Cell::new(0);
    let stop = Stop::default();
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (open, stop, http) = (&open, &stop, &http);

    moro_local::async_scope!(|scope| {
        loop {
            let stream = tokio::select! {
                handed = inbox.recv() => match handed {
                    Some(handed) => join(handed),
                    None => break, // the acceptor stopped: so do we
                },
                accepted = accept_own(own.as_ref()) => accepted,
            };
            let Ok(stream) = stream else { continue };
            stats.connections.fetch_add(1, Relaxed);
            if open.get() >= config.max_connections {
                stats.rejected.fetch_add(1, Relaxed);
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), || {}));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
                let count = || {
                    stats.requests.fetch_add(1, Relaxed);
                };
                connection(stream, handler, http, config, stop.wait(), count).await;
                open.set(open.get() - 1);
            });
        }
        // Idle connections close now; busy ones after the request in flight.
        stop.stop();
    })
    .await;
}
