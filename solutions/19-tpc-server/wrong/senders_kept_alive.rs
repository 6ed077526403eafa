//! Wrong: `run` gives the acceptor clones of the senders and keeps its own. When the
//! acceptor stops, its senders go, but `run`'s stay until every worker has been joined,
//! and no worker ends before its inbox closes: shutdown never finishes. Every test that
//! stops a server fails (the harness gives `run` 2 s after shutdown), except the one whose
//! only worker has panicked: `run` joins it at once and passes the panic on.
//! expect-fail: a_body_over_the_limit_gets_413, a_burst_for_a_busy_worker_is_answered, a_client_that_never_reads_does_not_hold_shutdown, a_client_that_stops_mid_body_gets_408, a_client_that_stops_mid_headers_is_closed, a_failed_accept_does_not_stop_the_server, a_full_worker_answers_503, a_full_worker_keeps_answering_503, a_head_trickled_byte_by_byte_is_closed, a_huge_head_gets_431_or_a_close, a_malformed_request_line_gets_400, a_request_finished_during_shutdown_is_counted, a_waiting_server_sleeps, a_worker_decides_the_limit_when_it_takes_a_connection, a_worker_does_not_detach_its_connections, a_worker_runs_outside_tokio_budget, a_worker_serves_its_connections_concurrently, bad_clients_do_not_stop_good_ones, bytes_after_the_content_length_are_the_next_request, clients_that_leave_halfway_are_let_go, connections_are_dealt_round_robin, connections_still_queued_at_shutdown_are_stopped, each_worker_drives_its_own_connections, failing_accepts_are_retried_after_a_pause, handler_state_stays_on_its_worker, idle_connections_are_closed, more_than_100_headers_get_431, pipelined_garbage_gets_400_after_the_good_requests, reuse_port_shuts_down_gracefully, shutdown_closes_connections_over_the_limit, shutdown_does_not_wait_for_bad_clients, shutdown_finishes_the_request_in_flight, stats_come_back_in_worker_order, the_kernel_spreads_connections_over_the_workers, the_limit_is_per_worker, two_servers_count_apart, uploads_in_flight_finish_after_the_acceptor_stops, a_failed_accept_is_reported_on_stderr, a_silent_client_over_the_limit_is_closed, shutdown_finishes_a_request_over_the_limit, a_handler_may_outlast_the_header_timeout
//! replaces: run

impl Server {
    /// Serves until `shutdown` completes, then finishes the requests in flight and
    /// returns what every worker did, in worker order. `handlers(id)` builds worker
    /// `id`'s handler on that worker's thread; it may borrow from the caller.
    pub fn run<H, F>(
        self,
        handlers: F,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<Vec<WorkerStats>>
    where
        H: Handler,
        F: Fn(usize) -> H + Sync,
    {
        let Server { listener, config } = self;
        if config.workers == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no workers"));
        }
        let (config, handlers) = (&config, &handlers);
        let mut listeners = own_listeners(listener, config)?;
        thread::scope(|threads| {
            let mut hands = Vec::with_capacity(config.workers);
            let mut workers = Vec::with_capacity(config.workers);
            for id in 0..config.workers {
                // The hand-off: the only thing that crosses threads is a socket.
                let (hand, inbox) = mpsc::unbounded_channel();
                hands.push(hand);
                let own = listeners.own.pop_front().flatten();
                let worker = thread::Builder::new()
                    .name(format!("worker-{id}"))
                    .spawn_scoped(threads, move || -> io::Result<WorkerStats> {
                        let runtime = Builder::new_current_thread()
                            .enable_all()
                            .build_local(LocalOptions::default())?;
                        let handler = handlers(id);
                        Ok(runtime.block_on(tokio::task::coop::unconstrained(worker(
                            inbox, own, &handler, config,
                        ))))
                    })?;
                workers.push(worker);
            }
            let accepted = accept(listeners.shared, hands.clone(), shutdown);
            // Every worker thread is joined before `run` returns: nothing outlives it.
            let mut stats = Vec::with_capacity(workers.len());
            for worker in workers {
                match worker.join() {
                    Ok(done) => stats.push(done?),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            accepted.map(|()| stats)
        })
    }
}
