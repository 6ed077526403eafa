//! Wrong: the worker looks in its inbox every 10 ms (`try_recv`, then a sleep), and its
//! connections check a stop flag as often, instead of awaiting the inbox and the given
//! `Stop`. Everything works, a little late; but an idle server wakes each worker 100 times
//! a second, and once per connection more, for nothing. The test watches every thread of
//! the server through the OS over 600 ms of idleness: a worker wakes some 60 times.
//! expect-fail: a_waiting_server_sleeps
//! may-also-fail: a_worker_serves_its_connections_concurrently
//! replaces: worker

/// One worker: serves the connections it is handed (or accepts on its own listener)
/// until its inbox closes, then stops every connection gracefully and waits for them.
async fn worker<H: Handler>(
    mut inbox: mpsc::UnboundedReceiver<Handed>,
    own: Option<std::net::TcpListener>,
    handler: &H,
    config: &Config,
) -> WorkerStats {
    // This worker's state: plain cells, borrowed by its connections, never shared.
    let stats = RefCell::new(WorkerStats::default());
    let open = Cell::new(0);
    // Set when the worker stops; each connection checks it every 10 ms.
    let stopping = Cell::new(false);
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (stats, open, stopping, http) = (&stats, &open, &stopping, &http);
    let stop = || async move {
        while !stopping.get() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };

    moro_local::async_scope!(|scope| {
        loop {
            let stream = match inbox.try_recv() {
                Ok(handed) => join(handed),
                Err(mpsc::error::TryRecvError::Disconnected) => break,
                Err(mpsc::error::TryRecvError::Empty) => {
                    // Nothing yet: look again in 10 ms (or accept on our own listener).
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(10)) => continue,
                        accepted = accept_own(own.as_ref()) => accepted,
                    }
                }
            };
            let Ok(stream) = stream else { continue };
            stats.borrow_mut().connections += 1;
            if open.get() >= config.max_connections {
                stats.borrow_mut().rejected += 1;
                scope.spawn(connection(stream, &Busy, http, config, stop(), || {}));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
                let count = || stats.borrow_mut().requests += 1;
                connection(stream, handler, http, config, stop(), count).await;
                open.set(open.get() - 1);
            });
        }
        // Idle connections close now; busy ones after the request in flight.
        stopping.set(true);
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    stats.take()
}
