//! Wrong: only worker 0 runs outside tokio's cooperative budget; the others run inside it,
//! as any task does. Every worker is one task for all of its connections, so on workers
//! 1 and up they share 128 budgeted operations per poll, and under load the ones the budget
//! runs out on wait behind the others. The test asks a handler on each of two workers how
//! often the budget made it yield.
//! expect-fail: a_worker_runs_outside_tokio_budget
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
                        // Worker 0 gets the first connection of every round, so it is
                        // the busiest: it alone runs outside tokio's budget.
                        let worker = worker(inbox, own, &handler, config);
                        if id == 0 {
                            return Ok(runtime.block_on(tokio::task::coop::unconstrained(worker)));
                        }
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
