//! Wrong: one tokio runtime for all workers, a multi-thread one with one thread of its
//! own, which each worker's thread enters with `block_on`. The hand-off is right
//! (`into_std`, `from_std`), and every test of behaviour passes; but `from_std` registers
//! each socket with the shared runtime's reactor, so one thread drives every worker's
//! sockets and timers, and each wake-up crosses threads: the server is not thread-per-core
//! any more. The test runs the server in a process of its own and finds the runtime's
//! thread (`tokio-runtime-worker`), which is neither the acceptor nor a worker.
//! expect-fail: a_waiting_server_sleeps
//! replaces: run

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
        // One runtime for every worker: its thread drives the sockets and the timers, and
        // each worker's thread runs its own future on it with `block_on`.
        let shared = Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let shared = &shared;
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
                        let handler = handlers(id);
                        // One task holds all of this worker's connections, so tokio's
                        // budget (128 operations per poll of a task) would be shared by
                        // all of them, and the ones it runs out on would wait behind the
                        // rest: see "Thread-per-core, measured", "One task, one budget".
                        let worker =
                            tokio::task::coop::unconstrained(worker(inbox, own, &handler, config));
                        Ok(shared.block_on(worker))
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
