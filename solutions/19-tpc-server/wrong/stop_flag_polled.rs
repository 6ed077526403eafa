//! Wrong: `Stop` looked like too much machinery, so the worker stops its connections with
//! a flag that each of them checks every millisecond (`sleep(1ms)` in a loop). Shutdown
//! works and is quick, and every test of behaviour passes; but a server with N open
//! connections now wakes up 1,000 x N times a second, idle or not, instead of sleeping
//! until something happens. The test watches the worker's thread through the OS while the
//! server is idle: it goes to sleep and wakes up again and again.
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
    // Set when the worker stops; each connection checks it every millisecond.
    let stopping = Cell::new(false);
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (stats, open, stopping, http) = (&stats, &open, &stopping, &http);
    let stop = || async move {
        while !stopping.get() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };

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
