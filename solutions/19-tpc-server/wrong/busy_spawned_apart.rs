//! Wrong: a connection over the limit is a detached `spawn_local` task. Busy borrows
//! nothing of the worker's, so the task can own what it needs (a clone of the settings, an
//! `Rc` of the stop signal) and compiles without `'static` being written anywhere. But the
//! worker's scope does not wait for it: at shutdown the worker returns once its own
//! connections are done, and its runtime drops the task with it, so a request over the
//! limit whose head was still arriving never gets its 503. The test stops the server while
//! a client over the limit has sent half its head, and sends the rest a second later.
//! expect-fail: shutdown_finishes_a_request_over_the_limit
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
    // In an Rc: the connections over the limit take their own handle on it.
    let stop = std::rc::Rc::new(Stop::default());
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
                // Busy needs nothing of the worker's: let the runtime run it on the side.
                let (stop, http, config) = (std::rc::Rc::clone(stop), http.clone(), *config);
                tokio::task::spawn_local(async move {
                    connection(stream, &Busy, &http, &config, stop.wait(), || {}).await;
                });
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
