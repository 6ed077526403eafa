//! Wrong: the workers keep no counters; each reports every connection, request and
//! rejection to a thread of its own that keeps the books for all of them, through std's
//! channel. No lock, no atomic, the counts come out right; but it is shared state under
//! another name, one more thread that every worker talks to on every request. A worker's
//! counters are its own, in plain cells, and it returns them when it ends. The test runs
//! the server in a process of its own and finds a thread that is neither the acceptor nor
//! a worker.
//! expect-fail: a_waiting_server_sleeps
//! replaces: solution

/// What a worker tells the books.
enum Event {
    Connection,
    Request,
    Rejected,
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
        let mut listeners = own_listeners(listener, config)?;
        thread::scope(|threads| {
            // One thread keeps the books: every worker reports each event to it.
            let (events, tally) = std::sync::mpsc::channel::<(usize, Event)>();
            let books = threads.spawn(move || {
                let mut stats = vec![WorkerStats::default(); config.workers];
                for (id, event) in tally {
                    match event {
                        Event::Connection => stats[id].connections += 1,
                        Event::Request => stats[id].requests += 1,
                        Event::Rejected => stats[id].rejected += 1,
                    }
                }
                stats
            });
            let mut hands = Vec::with_capacity(config.workers);
            let mut workers = Vec::with_capacity(config.workers);
            for id in 0..config.workers {
                // The hand-off: the only thing that crosses threads is a socket.
                let (hand, inbox) = mpsc::unbounded_channel();
                hands.push(hand);
                let own = listeners.own.pop_front().flatten();
                let events = events.clone();
                let worker = thread::Builder::new()
                    .name(format!("worker-{id}"))
                    .spawn_scoped(threads, move || -> io::Result<()> {
                        let runtime = Builder::new_current_thread()
                            .enable_all()
                            .build_local(LocalOptions::default())?;
                        let handler = handlers(id);
                        let report = |event| {
                            let _ = events.send((id, event));
                        };
                        // One task holds all of this worker's connections, so tokio's
                        // budget (128 operations per poll of a task) would be shared by
                        // all of them, and the ones it runs out on would wait behind the
                        // rest: see "Thread-per-core, measured", "One task, one budget".
                        let worker = tokio::task::coop::unconstrained(worker(
                            inbox, own, &handler, config, &report,
                        ));
                        Ok(runtime.block_on(worker))
                    })?;
                workers.push(worker);
            }
            drop(events);
            let accepted = accept(listeners.shared, hands, shutdown);
            // Every worker thread is joined before `run` returns: nothing outlives it.
            for worker in workers {
                match worker.join() {
                    Ok(done) => done?,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            let stats = books.join().expect("the books");
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
    report: &impl Fn(Event),
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
            report(Event::Connection);
            if open.get() >= config.max_connections {
                report(Event::Rejected);
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), || {}));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
                let count = || report(Event::Request);
                connection(stream, handler, http, config, stop.wait(), count).await;
                open.set(open.get() - 1);
            });
        }
        // Idle connections close now; busy ones after the request in flight.
        stop.stop();
    })
    .await;
}
