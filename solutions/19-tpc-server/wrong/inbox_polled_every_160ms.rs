//! Wrong: the worker looks in its inbox every 160 ms (an interval, then `try_recv`)
//! instead of awaiting `recv()`. A new connection waits up to 160 ms before it is served,
//! and an idle worker wakes six times a second for nothing. The interval is long enough
//! that the acceptor's connections are still served within the tests' limits; but the test
//! that watches every thread of the server through the OS over 600 ms of idleness sees the
//! worker wake three times or more, where an idle worker sleeps.
//! expect-fail: a_waiting_server_sleeps
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
    let stop = Stop::default();
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (stats, open, stop, http) = (&stats, &open, &stop, &http);

    moro_local::async_scope!(|scope| {
        // Look in the inbox now and then, and take whatever has come meanwhile.
        let mut tick = tokio::time::interval(Duration::from_millis(160));
        loop {
            let stream = tokio::select! {
                _ = tick.tick() => match inbox.try_recv() {
                    Ok(handed) => {
                        tick.reset_immediately(); // there may be more
                        join(handed)
                    }
                    Err(mpsc::error::TryRecvError::Empty) => continue,
                    Err(mpsc::error::TryRecvError::Disconnected) => break,
                },
                accepted = accept_own(own.as_ref()) => accepted,
            };
            let Ok(stream) = stream else { continue };
            stats.borrow_mut().connections += 1;
            if open.get() >= config.max_connections {
                stats.borrow_mut().rejected += 1;
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), || {}));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
                let count = || stats.borrow_mut().requests += 1;
                connection(stream, handler, http, config, stop.wait(), count).await;
                open.set(open.get() - 1);
            });
        }
        // Idle connections close now; busy ones after the request in flight.
        stop.stop();
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    stats.take()
}
