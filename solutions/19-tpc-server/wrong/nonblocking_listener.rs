//! Wrong: an acceptor without a runtime, polling std's listener (non-blocking, so that it
//! can check for shutdown between connections). On Linux a socket accepted from a
//! non-blocking listener is blocking all the same (accept(2): it does not inherit
//! O_NONBLOCK, unlike on the BSDs), and tokio's `TcpStream::from_std` panics on a
//! blocking socket in debug builds: "Registering a blocking socket with the tokio runtime
//! is unsupported."
//! expect-fail: a_body_over_the_limit_gets_413, a_burst_for_a_busy_worker_is_answered, a_client_that_never_reads_does_not_hold_shutdown, a_client_that_stops_mid_body_gets_408, a_client_that_stops_mid_headers_is_closed, a_failed_accept_does_not_stop_the_server, a_full_worker_answers_503, a_huge_head_gets_431_or_a_close, a_malformed_request_line_gets_400, a_panicking_handler_is_reported, a_request_finished_during_shutdown_is_counted, a_waiting_server_sleeps, a_worker_decides_the_limit_when_it_takes_a_connection, a_worker_does_not_detach_its_connections, a_worker_serves_its_connections_concurrently, bad_clients_do_not_stop_good_ones, bytes_after_the_content_length_are_the_next_request, connections_are_dealt_round_robin, connections_still_queued_at_shutdown_are_stopped, each_worker_drives_its_own_connections, failing_accepts_are_retried_after_a_pause, handler_state_stays_on_its_worker, more_than_100_headers_get_431, shutdown_closes_connections_over_the_limit, shutdown_finishes_the_request_in_flight, uploads_in_flight_finish_after_the_acceptor_stops, a_failed_accept_is_reported_on_stderr, a_silent_client_over_the_limit_is_closed, shutdown_finishes_a_request_over_the_limit, a_handler_may_outlast_the_header_timeout
//! may-also-fail: a_full_worker_keeps_answering_503, a_head_trickled_byte_by_byte_is_closed, clients_that_leave_halfway_are_let_go, idle_connections_are_closed, pipelined_garbage_gets_400_after_the_good_requests, shutdown_does_not_wait_for_bad_clients, stats_come_back_in_worker_order, the_limit_is_per_worker, two_servers_count_apart, a_worker_runs_outside_tokio_budget
//! replaces: accept

fn accept(
    listener: Option<Listening>,
    hands: Vec<mpsc::UnboundedSender<Handed>>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let mut shutdown = pin!(shutdown);
    let mut cx = Context::from_waker(Waker::noop());
    let mut next = 0;
    loop {
        if shutdown.as_mut().poll(&mut cx).is_ready() {
            return Ok(());
        }
        let Some(listener) = &listener else {
            thread::sleep(Duration::from_millis(1));
            continue;
        };
        match listener.socket.accept() {
            Ok((stream, _)) => {
                let _ = hands[next].send(stream);
                next = (next + 1) % hands.len();
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(e),
        }
    }
}
