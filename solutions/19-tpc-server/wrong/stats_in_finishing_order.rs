//! Wrong: each worker sends its stats down a channel as it ends, and `run` returns them
//! in the order they arrive, which is the order the workers ended, not worker order. With
//! equal counts everywhere nobody notices. The order test waits until workers 1 and 2 have
//! ended before it lets worker 0 end, so it sees them swapped every time. (Elsewhere it is a
//! race between threads: the burst test's two workers stop at the same moment, and in the
//! queued-at-shutdown test worker 1 closes its clients before it sends its stats, so worker 0
//! may send first, as verify saw on 2026-11-26 on a busy machine.)
//! expect-fail: stats_come_back_in_worker_order
//! may-also-fail: a_burst_for_a_busy_worker_is_answered, a_worker_decides_the_limit_when_it_takes_a_connection, connections_still_queued_at_shutdown_are_stopped
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
            let (done, finished) = std::sync::mpsc::channel();
            for id in 0..config.workers {
                // The hand-off: the only thing that crosses threads is a socket.
                let (hand, inbox) = mpsc::unbounded_channel();
                hands.push(hand);
                let own = listeners.own.pop_front().flatten();
                let done = done.clone();
                let worker = thread::Builder::new()
                    .name(format!("worker-{id}"))
                    .spawn_scoped(threads, move || -> io::Result<WorkerStats> {
                        let runtime = Builder::new_current_thread()
                            .enable_all()
                            .build_local(LocalOptions::default())?;
                        let handler = handlers(id);
                        let stats = runtime.block_on(tokio::task::coop::unconstrained(worker(
                            inbox, own, &handler, config,
                        )));
                        let _ = done.send(stats);
                        Ok(stats)
                    })?;
                workers.push(worker);
            }
            let accepted = accept(listeners.shared, hands, shutdown);
            // Every worker thread is joined before `run` returns: nothing outlives it.
            drop(done);
            let stats: Vec<WorkerStats> = finished.iter().collect(); // until every worker is done
            for worker in workers {
                match worker.join() {
                    Ok(done) => drop(done?),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            accepted.map(|()| stats)
        })
    }
}
