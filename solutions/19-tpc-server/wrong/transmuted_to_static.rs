//! Wrong (breaks the lesson, and fails a test): the worker keeps its connections in a
//! `Vec<Pin<Box<dyn Future<Output = ()>>>>` and polls them itself. That type means
//! `dyn Future + 'static`, and the connections borrow the worker's handler and state, so
//! rustc refuses them; an `unsafe` `mem::transmute` makes each boxed future look
//! `'static`. Here the worker does wait for every connection, so nothing dangles, but only
//! because of code the compiler no longer checks: one early return and a connection reads
//! freed memory. The lifetime the compiler asked for was right; a scope gives it. The
//! runner refuses `unsafe` and `mem::transmute` in every lab; and a Vec polled in a loop
//! polls every waiting connection on every wake-up, which a test counts.
//! expect-fail: a_worker_serves_its_connections_concurrently
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

    // Every connection this worker serves, polled by the worker itself.
    let running: RefCell<Vec<Pin<Box<dyn Future<Output = ()>>>>> = RefCell::default();
    // Polls every connection; done when none is left.
    let serve_all = || {
        std::future::poll_fn(|cx| {
            let mut running = running.borrow_mut();
            running.retain_mut(|connection| connection.as_mut().poll(cx).is_pending());
            if running.is_empty() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    };
    loop {
        let stream = tokio::select! {
            handed = inbox.recv() => match handed {
                Some(handed) => join(handed),
                None => break, // the acceptor stopped: so do we
            },
            accepted = accept_own(own.as_ref()) => accepted,
            () = serve_all(), if !running.borrow().is_empty() => continue,
        };
        let Ok(stream) = stream else { continue };
        stats.borrow_mut().connections += 1;
        let connection: Pin<Box<dyn Future<Output = ()> + '_>> =
            if open.get() >= config.max_connections {
                stats.borrow_mut().rejected += 1;
                Box::pin(connection(stream, &Busy, http, config, stop.wait(), || {}))
            } else {
                open.set(open.get() + 1);
                Box::pin(async move {
                    let count = || stats.borrow_mut().requests += 1;
                    connection(stream, handler, http, config, stop.wait(), count).await;
                    open.set(open.get() - 1);
                })
            };
        // "It borrows `stats`, which lives long enough": make the box look 'static.
        let connection = unsafe {
            std::mem::transmute::<
                Pin<Box<dyn Future<Output = ()> + '_>>,
                Pin<Box<dyn Future<Output = ()>>>,
            >(connection)
        };
        running.borrow_mut().push(connection);
    }
    // Idle connections close now; busy ones after the request in flight.
    stop.stop();
    serve_all().await;
    stats.take()
}
