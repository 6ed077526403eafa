//! Wrong: round-robin that never moves on. Every connection goes to worker 0; the other
//! workers idle, and nothing else looks wrong.
//! expect-fail: a_burst_for_a_busy_worker_is_answered, a_failed_accept_does_not_stop_the_server, a_panicking_handler_is_reported, a_waiting_server_sleeps, a_worker_decides_the_limit_when_it_takes_a_connection, connections_are_dealt_round_robin, connections_still_queued_at_shutdown_are_stopped, each_worker_drives_its_own_connections, handler_state_stays_on_its_worker, uploads_in_flight_finish_after_the_acceptor_stops, a_worker_runs_outside_tokio_budget, a_worker_serves_its_connections_concurrently
//! may-also-fail: stats_come_back_in_worker_order, the_limit_is_per_worker
//! replaces: accept

/// The acceptor, on the calling thread: deals connections round-robin until
/// `shutdown` completes. It runs on a runtime of its own, which it drops before the
/// workers hear that it stopped (they see their inbox close).
fn accept(
    listener: Option<Listening>,
    hands: Vec<mpsc::UnboundedSender<Handed>>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let runtime = Builder::new_current_thread().enable_all().build()?;
    let accepted = runtime.block_on(async {
        let mut shutdown = pin!(shutdown);
        let Some(listener) = listener else {
            // SO_REUSEPORT: the workers accept for themselves.
            shutdown.await;
            return Ok(());
        };
        let listener = listener.listen()?;
        let next = 0;
        loop {
            let stream = loop {
                tokio::select! {
                    biased;
                    () = &mut shutdown => return Ok(()),
                    accepted = listener.accept() => match accepted {
                        Ok(stream) => break stream,
                        Err(error) => pause_after(&error).await,
                    },
                }
            };
            if let Ok(stream) = leave(stream) {
                // A worker that has gone (it failed to start) loses its turn.
                let _ = hands[next].send(stream);
            }
        }
    });
    drop(runtime);
    drop(hands);
    accepted
}
