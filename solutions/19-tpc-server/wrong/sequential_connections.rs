//! Wrong: a worker that serves one connection at a time. It awaits each connection
//! before taking the next, so one slow or silent client stops everyone else on that
//! worker (the other workers are fine, which hides it under light load).
//! expect-fail: a_burst_for_a_busy_worker_is_answered, a_failed_accept_does_not_stop_the_server, a_full_worker_answers_503, a_request_finished_during_shutdown_is_counted, a_waiting_server_sleeps, a_worker_decides_the_limit_when_it_takes_a_connection, a_worker_serves_its_connections_concurrently, bad_clients_do_not_stop_good_ones, connections_are_dealt_round_robin, connections_still_queued_at_shutdown_are_stopped, each_worker_drives_its_own_connections, handler_state_stays_on_its_worker, more_than_100_headers_get_431, reuse_port_shuts_down_gracefully, shutdown_closes_connections_over_the_limit, shutdown_does_not_wait_for_bad_clients, shutdown_finishes_the_request_in_flight, the_kernel_spreads_connections_over_the_workers, uploads_in_flight_finish_after_the_acceptor_stops, a_silent_client_over_the_limit_is_closed, shutdown_finishes_a_request_over_the_limit
//! may-also-fail: a_full_worker_keeps_answering_503, clients_that_leave_halfway_are_let_go, stats_come_back_in_worker_order, the_limit_is_per_worker
//! replaces: worker

async fn worker<H: Handler>(
    mut inbox: mpsc::UnboundedReceiver<Handed>,
    own: Option<std::net::TcpListener>,
    handler: &H,
    config: &Config,
) -> WorkerStats {
    let stats = RefCell::new(WorkerStats::default());
    let stop = Stop::default();
    let http = http1_builder(config);
    let own = own.and_then(|listener| TcpListener::from_std(listener).ok());
    loop {
        let stream = tokio::select! {
            handed = inbox.recv() => match handed {
                Some(handed) => join(handed),
                None => break,
            },
            accepted = accept_own(own.as_ref()) => accepted,
        };
        let Ok(stream) = stream else { continue };
        stats.borrow_mut().connections += 1;
        let count = || stats.borrow_mut().requests += 1;
        connection(stream, handler, &http, config, stop.wait(), count).await;
    }
    stats.take()
}
