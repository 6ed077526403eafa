//! Wrong: the counters in `static` atomics, one per worker index, reset when `run`
//! starts. No `Arc`, no lock, so the `forbid` list does not see them, and one server at a
//! time counts right. Two servers in one process (two tests running at once, or an app
//! with a public and an admin port) add into the same counters.
//! expect-fail: two_servers_count_apart
//! may-also-fail: connections_are_dealt_round_robin, shutdown_finishes_the_request_in_flight, a_full_worker_answers_503, a_full_worker_keeps_answering_503, the_limit_is_per_worker, stats_come_back_in_worker_order, the_kernel_spreads_connections_over_the_workers, a_failed_accept_does_not_stop_the_server, a_burst_for_a_busy_worker_is_answered, shutdown_closes_connections_over_the_limit, a_request_finished_during_shutdown_is_counted, a_worker_decides_the_limit_when_it_takes_a_connection, connections_still_queued_at_shutdown_are_stopped, failing_accepts_are_retried_after_a_pause, a_silent_client_over_the_limit_is_closed, shutdown_finishes_a_request_over_the_limit
//! replaces: solution

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Enough for any machine this runs on.
const MAX_WORKERS: usize = 256;
static CONNECTIONS: [AtomicU64; MAX_WORKERS] = [const { AtomicU64::new(0) }; MAX_WORKERS];
static REQUESTS: [AtomicU64; MAX_WORKERS] = [const { AtomicU64::new(0) }; MAX_WORKERS];
static REJECTED: [AtomicU64; MAX_WORKERS] = [const { AtomicU64::new(0) }; MAX_WORKERS];

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
        for id in 0..config.workers.min(MAX_WORKERS) {
            // A fresh start for this run.
            for counter in [&CONNECTIONS, &REQUESTS, &REJECTED] {
                counter[id].store(0, Relaxed);
            }
        }
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
                        runtime.block_on(tokio::task::coop::unconstrained(worker(
                            id, inbox, own, &handler, config,
                        )));
                        Ok(WorkerStats {
                            connections: CONNECTIONS[id].load(Relaxed),
                            requests: REQUESTS[id].load(Relaxed),
                            rejected: REJECTED[id].load(Relaxed),
                        })
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
    id: usize,
    mut inbox: mpsc::UnboundedReceiver<Handed>,
    own: Option<std::net::TcpListener>,
    handler: &H,
    config: &Config,
) {
    // This worker's state: plain cells, borrowed by its connections, never shared.
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
            CONNECTIONS[id].fetch_add(1, Relaxed);
            if open.get() >= config.max_connections {
                REJECTED[id].fetch_add(1, Relaxed);
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), || {}));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
                let count = || {
                    REQUESTS[id].fetch_add(1, Relaxed);
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
