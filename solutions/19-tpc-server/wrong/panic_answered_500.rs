//! Wrong: the worker catches its handler's panics (`catch_unwind` around each poll of a
//! handler's future), answers 500 and serves on, and `run` reports the first panic only at
//! the end, as an error. The server looks robust; but a panic is a bug, and the worker goes
//! on with whatever state the handler left half-changed (its `Rc`s and `RefCell`s were in
//! the middle of something). The README's rule is that the panic takes the worker down at
//! once. The test makes a handler panic and expects no answer, and the worker gone.
//! expect-fail: a_panicking_handler_is_reported
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
    let panicked = RefCell::new(None);
    let handler = &Caught {
        handler,
        panicked: &panicked,
    };
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
        // Idle connections close now; busy ones after the request in flight.
        stop.stop();
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    if let Some(panic) = panicked.take() {
        std::panic::resume_unwind(panic);
    }
    stats.take()
}

/// The handler, its panics caught: a request whose handler panics gets a 500, and the first
/// panic is kept for the end.
struct Caught<'a, H> {
    handler: &'a H,
    panicked: &'a RefCell<Option<Box<dyn std::any::Any + Send>>>,
}

impl<H: Handler> Handler for Caught<'_, H> {
    async fn call(&self, request: Request<Body>) -> Reply {
        let mut answer = pin!(self.handler.call(request));
        let caught = std::future::poll_fn(|cx| {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                answer.as_mut().poll(cx)
            })) {
                Ok(Poll::Ready(reply)) => Poll::Ready(Ok(reply)),
                Ok(Poll::Pending) => Poll::Pending,
                Err(panic) => Poll::Ready(Err(panic)),
            }
        })
        .await;
        caught.unwrap_or_else(|panic| {
            self.panicked.borrow_mut().get_or_insert(panic);
            let mut failed = reply(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
            failed
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            failed
        })
    }
}
