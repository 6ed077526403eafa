//! Wrong: the acceptor keeps the books and decides the limit for every worker: it counts
//! what it deals and rejects, and tracks each worker's open connections from the closes
//! the workers report back through a channel. No lock and no atomic, but it is each
//! worker's state kept on another thread, from news that comes late: a worker that was
//! busy while a connection waited in its queue had room by the time it took it, and the
//! acceptor, which decided when it dealt it, rejected it all the same. The test blocks
//! worker 0 while its one connection is about to close and the next one waits in its
//! queue: the worker should serve it.
//! expect-fail: a_worker_decides_the_limit_when_it_takes_a_connection, the_kernel_spreads_connections_over_the_workers
//! may-also-fail: a_full_worker_keeps_answering_503
//! replaces: solution

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
            // Workers tell the acceptor when a connection it admitted has closed.
            let (closed, closes) = mpsc::unbounded_channel::<usize>();
            let mut hands = Vec::with_capacity(config.workers);
            let mut workers = Vec::with_capacity(config.workers);
            for id in 0..config.workers {
                // The hand-off: the only thing that crosses threads is a socket.
                let (hand, inbox) = mpsc::unbounded_channel();
                hands.push(hand);
                let own = listeners.own.pop_front().flatten();
                let closed = closed.clone();
                let worker = thread::Builder::new()
                    .name(format!("worker-{id}"))
                    .spawn_scoped(threads, move || -> io::Result<u64> {
                        let runtime = Builder::new_current_thread()
                            .enable_all()
                            .build_local(LocalOptions::default())?;
                        let handler = handlers(id);
                        // One task holds all of this worker's connections, so tokio's
                        // budget (128 operations per poll of a task) would be shared by
                        // all of them, and the ones it runs out on would wait behind the
                        // rest: see "Thread-per-core, measured", "One task, one budget".
                        let worker = tokio::task::coop::unconstrained(worker(
                            id, inbox, own, &handler, config, closed,
                        ));
                        Ok(runtime.block_on(worker))
                    })?;
                workers.push(worker);
            }
            drop(closed);
            // The acceptor keeps the books: it knows what it dealt, and what it admitted.
            let books = accept(listeners.shared, hands, closes, config, shutdown);
            // Every worker thread is joined before `run` returns: nothing outlives it.
            let mut requests = Vec::with_capacity(workers.len());
            for worker in workers {
                match worker.join() {
                    Ok(done) => requests.push(done?),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            let books = books?.into_iter().zip(requests);
            Ok(books
                .map(|((connections, rejected), requests)| WorkerStats {
                    connections,
                    requests,
                    rejected,
                })
                .collect())
        })
    }
}

/// The acceptor, on the calling thread: deals connections round-robin until
/// `shutdown` completes, decides for each whether its worker has room (it tracks every
/// worker's open connections), and counts them: (connections, rejected) per worker.
fn accept(
    listener: Option<Listening>,
    hands: Vec<mpsc::UnboundedSender<(Handed, bool)>>,
    mut closes: mpsc::UnboundedReceiver<usize>,
    config: &Config,
    shutdown: impl Future<Output = ()>,
) -> io::Result<Vec<(u64, u64)>> {
    let runtime = Builder::new_current_thread().enable_all().build()?;
    let mut open = vec![0; hands.len()];
    let mut books = vec![(0, 0); hands.len()];
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
                    Some(id) = closes.recv() => open[id] -= 1,
                    accepted = listener.accept() => match accepted {
                        Ok(stream) => break stream,
                        // A failed accept is not the end of the server: say so, and
                        // accept again.
                        Err(error) => pause_after(&error).await,
                    },
                }
            };
            if let Ok(stream) = leave(stream) {
                books[next].0 += 1;
                let admitted = open[next] < config.max_connections;
                if admitted {
                    open[next] += 1;
                } else {
                    books[next].1 += 1;
                }
                let _ = hands[next].send((stream, admitted));
            }
        }
        Ok(())
    });
    drop(runtime);
    drop(hands);
    accepted.map(|()| books)
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

/// One worker: serves what the acceptor admitted, answers Busy to the rest, counts
/// requests, and tells the acceptor when an admitted connection closes.
async fn worker<H: Handler>(
    id: usize,
    mut inbox: mpsc::UnboundedReceiver<(Handed, bool)>,
    own: Option<std::net::TcpListener>,
    handler: &H,
    config: &Config,
    closed: mpsc::UnboundedSender<usize>,
) -> u64 {
    // This worker's state: plain cells, borrowed by its connections, never shared.
    let requests = Cell::new(0);
    let stop = Stop::default();
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (requests, closed, stop, http) = (&requests, &closed, &stop, &http);

    moro_local::async_scope!(|scope| {
        loop {
            let stream = tokio::select! {
                handed = inbox.recv() => match handed {
                    Some((handed, admitted)) => join(handed).map(|stream| (stream, admitted)),
                    None => break, // the acceptor stopped: so do we
                },
                accepted = accept_own(own.as_ref()) => accepted.map(|stream| (stream, true)),
            };
            let Ok((stream, admitted)) = stream else {
                continue;
            };
            if !admitted {
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), || {}));
                continue;
            }
            scope.spawn(async move {
                let count = || requests.set(requests.get() + 1);
                connection(stream, handler, http, config, stop.wait(), count).await;
                let _ = closed.send(id);
            });
        }
        // Idle connections close now; busy ones after the request in flight.
        stop.stop();
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    requests.get()
}
