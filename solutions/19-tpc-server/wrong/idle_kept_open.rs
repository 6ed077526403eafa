//! Wrong: a shutdown that waits for connections without telling them. The scope waits
//! for every connection, as it should, but nobody calls `stop`: an idle keep-alive
//! connection stays open until its client leaves or `header_timeout` closes it.
//! expect-fail: a_request_finished_during_shutdown_is_counted, connections_still_queued_at_shutdown_are_stopped, reuse_port_shuts_down_gracefully, shutdown_closes_connections_over_the_limit, shutdown_finishes_the_request_in_flight, uploads_in_flight_finish_after_the_acceptor_stops, shutdown_finishes_a_request_over_the_limit
//! may-also-fail: stats_come_back_in_worker_order
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
                connection(stream, handler, http, config, stop.wait(), count).await;
                open.set(open.get() - 1);
            });
        }
        // Every connection will end on its own, sooner or later.
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    stats.take()
}
