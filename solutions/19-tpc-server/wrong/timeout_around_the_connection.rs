//! Wrong: the header timeout put around the whole connection (`tokio::time::timeout`),
//! as if it were a limit on how long a client may stay. A request whose handler takes
//! longer than `header_timeout` has its connection dropped under it, with no reply, and so
//! does a keep-alive client whose requests add up to more. The test keeps a handler
//! waiting for four header timeouts (1.2 s against 300 ms) and wants its reply; another
//! holds one past the timeout while a silent client over the limit is closed.
//! expect-fail: a_handler_may_outlast_the_header_timeout, a_silent_client_over_the_limit_is_closed
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
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), || {}));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
                let count = || stats.borrow_mut().requests += 1;
                // The header timeout, applied once around the whole connection.
                let served = connection(stream, handler, http, config, stop.wait(), count);
                let _ = tokio::time::timeout(config.header_timeout, served).await;
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
