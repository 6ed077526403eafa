//! Wrong: the `'static` bounds are gone, but the threads are still `thread::spawn`ed.
//! Such a thread may outlive `run`, so it may not borrow the handler factory or the
//! config (E0597), and the handler type it returns must be `'static` (E0310).
//! `thread::scope` exists for this.
//! expect-error: E0310, E0597
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
        {
            let mut hands = Vec::with_capacity(config.workers);
            let mut workers = Vec::with_capacity(config.workers);
            for id in 0..config.workers {
                // The hand-off: the only thing that crosses threads is a socket.
                let (hand, inbox) = mpsc::unbounded_channel();
                hands.push(hand);
                let own = listeners.own.pop_front().flatten();
                let worker = thread::Builder::new().name(format!("worker-{id}")).spawn(
                    move || -> io::Result<WorkerStats> {
                        let runtime = Builder::new_current_thread()
                            .enable_all()
                            .build_local(LocalOptions::default())?;
                        let handler = handlers(id);
                        Ok(runtime.block_on(tokio::task::coop::unconstrained(worker(
                            inbox, own, &handler, config,
                        ))))
                    },
                )?;
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
        }
    }
}
