//! Wrong: every connection a detached `spawn_local` task, as in the starter, made to
//! compile with an `unsafe` transmute to `'static` (the runner refuses that too). Shutdown
//! looks right: the worker waits until its open count is back to zero (woken by the last
//! connection), so requests in flight are answered. But nothing joins the tasks: the
//! worker's state they borrow goes when the worker returns, whatever is still running (a
//! connection over the limit is not even counted), and the runtime drops those tasks later.
//! A task's panic stays in the task, too: a handler that panics no longer reaches `run`.
//! The tests ask each handler which tokio task runs it (a task of its own, not the
//! worker's scope), and make one panic.
//! expect-fail: a_worker_does_not_detach_its_connections, a_panicking_handler_is_reported, shutdown_finishes_a_request_over_the_limit
//! replaces: worker

/// One worker: serves the connections it is handed (or accepts on its own listener)
/// until its inbox closes, then stops every connection gracefully and waits for them.
async fn worker<H: Handler>(
    mut inbox: mpsc::UnboundedReceiver<Handed>,
    own: Option<std::net::TcpListener>,
    handler: &H,
    config: &Config,
) -> WorkerStats {
    let stats = RefCell::new(WorkerStats::default());
    let open = Cell::new(0);
    let stop = Stop::default();
    // Stopped by the last connection to close once the worker is stopping.
    let drained = Stop::default();
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (stats, open, stop, drained, http) = (&stats, &open, &stop, &drained, &http);

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
        let task: Pin<Box<dyn Future<Output = ()> + '_>> = if open.get() >= config.max_connections {
            stats.borrow_mut().rejected += 1;
            Box::pin(connection(stream, &Busy, http, config, stop.wait(), || {}))
        } else {
            open.set(open.get() + 1);
            Box::pin(async move {
                let count = || stats.borrow_mut().requests += 1;
                connection(stream, handler, http, config, stop.wait(), count).await;
                open.set(open.get() - 1);
                if open.get() == 0 {
                    drained.stop();
                }
            })
        };
        // spawn_local wants 'static; "the worker waits for them anyway".
        let task: Pin<Box<dyn Future<Output = ()> + 'static>> =
            unsafe { std::mem::transmute(task) };
        // Each task outside tokio's budget, as the worker would be.
        tokio::task::spawn_local(tokio::task::coop::unconstrained(task));
    }
    stop.stop();
    if open.get() > 0 {
        drained.wait().await;
    }
    stats.take()
}
