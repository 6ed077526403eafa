//! Wrong: the open-connection count in a `static` atomic, one for every worker (and every
//! server in the process). `max_connections` is per worker: with two workers and a limit
//! of 1, the second worker turns its first client away. No `Arc` and no lock, so the
//! `forbid` list does not see it; the tests do.
//! expect-fail: a_burst_for_a_busy_worker_is_answered, a_worker_decides_the_limit_when_it_takes_a_connection, the_limit_is_per_worker, two_servers_count_apart
//! may-also-fail: a_full_worker_answers_503, a_full_worker_keeps_answering_503, shutdown_does_not_wait_for_bad_clients, shutdown_closes_connections_over_the_limit, a_silent_client_over_the_limit_is_closed, shutdown_finishes_a_request_over_the_limit
//! replaces: worker

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// Open connections, of every worker.
static OPEN: AtomicUsize = AtomicUsize::new(0);

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
    let stop = Stop::default();
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    let (stats, stop, http) = (&stats, &stop, &http);

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
            if OPEN.load(SeqCst) >= config.max_connections {
                stats.borrow_mut().rejected += 1;
                scope.spawn(connection(stream, &Busy, http, config, stop.wait(), || {}));
                continue;
            }
            OPEN.fetch_add(1, SeqCst);
            scope.spawn(async move {
                let count = || stats.borrow_mut().requests += 1;
                connection(stream, handler, http, config, stop.wait(), count).await;
                OPEN.fetch_sub(1, SeqCst);
            });
        }
        // Idle connections close now; busy ones after the request in flight.
        stop.stop();
    })
    .await;
    // The scope has waited for every connection: nothing of this worker is running.
    stats.take()
}
