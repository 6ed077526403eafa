//! Wrong: the seed's hand-off. The tokio `TcpStream` itself travels to the worker, still
//! registered with the acceptor's reactor, so its readiness comes from the acceptor's
//! runtime. While that runtime waits in `accept` it relays wake-ups across threads, and
//! every test that neither freezes nor stops the acceptor passes. Frozen, it relays
//! nothing and the stream stalls; dropped, it fails every read and write of the stream
//! with "A Tokio 1.x context was found, but it is being shutdown."
//! expect-fail: a_request_finished_during_shutdown_is_counted, connections_still_queued_at_shutdown_are_stopped, each_worker_drives_its_own_connections, shutdown_finishes_the_request_in_flight, uploads_in_flight_finish_after_the_acceptor_stops, shutdown_finishes_a_request_over_the_limit
//! may-also-fail: stats_come_back_in_worker_order
//! replaces: handoff

type Handed = TcpStream;

fn leave(stream: TcpStream) -> io::Result<Handed> {
    Ok(stream) // no into_std: it stays on the acceptor's reactor
}

fn join(stream: Handed) -> io::Result<TcpStream> {
    Ok(stream)
}
