//! Wrong: no scope; the worker keeps its connections in a `Vec` of boxed futures and, each
//! time its task is woken, polls the inbox and then every connection. It serves everything,
//! concurrently and correctly; but every event (a byte on one connection) costs a poll of
//! every open connection, so a worker with 10,000 idle keep-alive clients does 10,000 polls
//! per request. A scope (a `FuturesUnordered` inside) polls only the jobs whose waker
//! fired. The test counts the polls of two waiting handlers while 50 requests come in on
//! another connection of the same worker.
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

    // The worker's own executor: every connection in a Vec, all polled on each wake-up.
    let mut jobs: Vec<Pin<Box<dyn Future<Output = ()> + '_>>> = Vec::new();
    let mut receiving = true;
    let mut accepting = pin!(accept_own(own.as_ref()));
    std::future::poll_fn(|cx| {
        while receiving {
            let stream = match inbox.poll_recv(cx) {
                Poll::Ready(Some(handed)) => join(handed),
                Poll::Ready(None) => {
                    // The acceptor stopped: idle connections close now, busy ones after
                    // the request in flight.
                    receiving = false;
                    stop.stop();
                    break;
                }
                Poll::Pending => match accepting.as_mut().poll(cx) {
                    Poll::Ready(accepted) => {
                        accepting.set(accept_own(own.as_ref()));
                        accepted
                    }
                    Poll::Pending => break,
                },
            };
            let Ok(stream) = stream else { continue };
            stats.borrow_mut().connections += 1;
            if open.get() >= config.max_connections {
                stats.borrow_mut().rejected += 1;
                jobs.push(Box::pin(connection(
                    stream,
                    &Busy,
                    http,
                    config,
                    stop.wait(),
                    || {},
                )));
                continue;
            }
            open.set(open.get() + 1);
            jobs.push(Box::pin(async move {
                let count = || stats.borrow_mut().requests += 1;
                connection(stream, handler, http, config, stop.wait(), count).await;
                open.set(open.get() - 1);
            }));
        }
        jobs.retain_mut(|job| job.as_mut().poll(cx).is_pending());
        if receiving || !jobs.is_empty() {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    stats.take()
}
