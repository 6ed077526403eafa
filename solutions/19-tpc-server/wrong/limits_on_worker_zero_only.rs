//! Wrong: only worker 0 serves with the Config it was given; the others use their own,
//! lenient limits (timeouts of a year, a GiB of body, 16 MiB of head). A server is as
//! strict as its most lenient worker: connections are dealt round-robin, so every other
//! one escapes the limits. The tests put a bad client on each of two workers: a head over
//! `max_header_size`, a body over `max_body`, a client stuck in its head, one stuck in its
//! body.
//! expect-fail: a_huge_head_gets_431_or_a_close, a_body_over_the_limit_gets_413, a_client_that_stops_mid_headers_is_closed, a_client_that_stops_mid_body_gets_408
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
                        // Worker 0 keeps to the caller's limits; the others need not be so
                        // strict.
                        let year = Duration::from_secs(365 * 24 * 3600);
                        let lax = &Config {
                            header_timeout: year,
                            body_timeout: year,
                            write_timeout: year,
                            max_body: 1 << 30,
                            max_header_size: 16 << 20,
                            ..*config
                        };
                        let config = if id == 0 { config } else { lax };
                        // One task holds all of this worker's connections, so tokio's
                        // budget (128 operations per poll of a task) would be shared by
                        // all of them, and the ones it runs out on would wait behind the
                        // rest: see "Thread-per-core, measured", "One task, one budget".
                        let worker =
                            tokio::task::coop::unconstrained(worker(inbox, own, &handler, config));
                        Ok(runtime.block_on(worker))
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
