//! Wrong: a `RefCell` borrow held across `.await`. Each connection keeps the worker's
//! counters borrowed while it runs, to add its requests at the end; the next connection
//! (or the first request's count) finds them borrowed and panics: "already borrowed".
//! Clippy's `await_holding_refcell_ref` lint points at it. (Where a test's connections
//! come one after the other, whether the last one's job has ended before the next one
//! starts is a race between the client and the worker: those tests fail only sometimes.)
//! expect-fail: a_burst_for_a_busy_worker_is_answered, a_client_that_never_reads_does_not_hold_shutdown, a_failed_accept_does_not_stop_the_server, a_full_worker_answers_503, a_worker_serves_its_connections_concurrently, bad_clients_do_not_stop_good_ones, connections_are_dealt_round_robin, each_worker_drives_its_own_connections, handler_state_stays_on_its_worker, more_than_100_headers_get_431, reuse_port_shuts_down_gracefully, shutdown_closes_connections_over_the_limit, shutdown_finishes_the_request_in_flight, the_kernel_spreads_connections_over_the_workers, uploads_in_flight_finish_after_the_acceptor_stops, a_silent_client_over_the_limit_is_closed, shutdown_finishes_a_request_over_the_limit
//! may-also-fail: a_full_worker_keeps_answering_503, clients_that_leave_halfway_are_let_go, idle_connections_are_closed, shutdown_does_not_wait_for_bad_clients, the_limit_is_per_worker, a_waiting_server_sleeps, a_worker_does_not_detach_its_connections, a_request_finished_during_shutdown_is_counted, a_worker_decides_the_limit_when_it_takes_a_connection, connections_still_queued_at_shutdown_are_stopped, a_panicking_handler_is_reported, a_huge_head_gets_431_or_a_close
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
                let mut stats = stats.borrow_mut(); // held until the connection ends
                let served = Cell::new(0);
                let count = || served.set(served.get() + 1);
                connection(stream, handler, http, config, stop.wait(), count).await;
                stats.requests += served.get();
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
