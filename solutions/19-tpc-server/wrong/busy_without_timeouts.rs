//! Wrong: connections over the limit are served without timeouts (a year each): Busy only
//! answers 503, so why hurry its clients? Because a client over the limit that never says
//! a word then keeps its socket open for as long as it likes, and a few thousand such
//! clients exhaust the worker's file descriptors while costing the attacker nothing. Busy's
//! connections get the Config's timeouts like every other. The test keeps a client over
//! the limit silent, with a header timeout of 300 ms, and expects it closed.
//! expect-fail: a_silent_client_over_the_limit_is_closed
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
    // Busy only says 503: no need to hurry its clients.
    let year = Duration::from_secs(365 * 24 * 3600);
    let patient = &Config {
        header_timeout: year,
        body_timeout: year,
        write_timeout: year,
        ..*config
    };
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
                scope.spawn(connection(stream, &Busy, http, patient, stop.wait(), || {}));
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
