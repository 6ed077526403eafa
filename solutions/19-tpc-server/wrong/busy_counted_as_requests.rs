//! Wrong: the rejected connections' requests are counted in `requests`, because `Busy`'s
//! connection gets the same `count` as the handler's. `requests` is what the handler
//! answered; a 503 from `Busy` is not one of them.
//! expect-fail: a_burst_for_a_busy_worker_is_answered, a_full_worker_keeps_answering_503, a_worker_decides_the_limit_when_it_takes_a_connection, shutdown_closes_connections_over_the_limit, the_limit_is_per_worker, shutdown_finishes_a_request_over_the_limit
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
            let count = || stats.borrow_mut().requests += 1;
            if open.get() >= config.max_connections {
                stats.borrow_mut().rejected += 1;
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), count));
                continue;
            }
            open.set(open.get() + 1);
            scope.spawn(async move {
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
