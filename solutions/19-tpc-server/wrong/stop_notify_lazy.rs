//! Wrong: tokio's `Notify` instead of the given `Stop`, with `notify_waiters` to stop and a
//! `notified()` made by each connection's stop future when it is first polled. Waking is
//! not remembering: `notify_waiters` wakes only the futures already waiting, so a
//! connection that the worker takes from its queue after the acceptor has stopped never
//! hears it, and holds the worker (and `run`) until its header timeout. The test blocks
//! worker 0 while a silent client waits in its queue, stops the server, lets worker 0 go.
//! expect-fail: connections_still_queued_at_shutdown_are_stopped
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
    let stop = tokio::sync::Notify::new();
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (stats, open, stop, http) = (&stats, &open, &stop, &http);

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
                let stopped = async { stop.notified().await };
                scope.spawn(connection(stream, &Busy, http, config, stopped, || {}));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
                let count = || stats.borrow_mut().requests += 1;
                let stopped = async { stop.notified().await };
                connection(stream, handler, http, config, stopped, count).await;
                open.set(open.get() - 1);
            });
        }
        // Idle connections close now; busy ones after the request in flight.
        stop.notify_waiters();
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    stats.take()
}
