//! Wrong: over the limit, the worker writes a canned 503 straight onto the socket and drops
//! it, without `Busy`, without reading the request. It is quick, and the client often gets
//! the 503; but the answer goes out before the request has been read, and a socket closed
//! with a request unread resets the connection, so a client whose request arrives after
//! the 503 may see only the reset. The test keeps a client over the limit silent for a
//! while: it must have been sent nothing before it sends its request.
//! expect-fail: a_full_worker_keeps_answering_503, a_silent_client_over_the_limit_is_closed
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
                // Full: answer at once, on the socket itself, and hang up.
                if let Ok(mut stream) = stream.into_std() {
                    let _ = io::Write::write_all(
                        &mut stream,
                        b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\nconnection: close\r\n\r\nbusy",
                    );
                }
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
