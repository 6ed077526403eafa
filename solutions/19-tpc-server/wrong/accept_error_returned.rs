//! Wrong: a failed accept ends the acceptor (the error is returned, as `?` would), and with
//! it the server. accept(2) fails for reasons that pass: the process is out of file
//! descriptors until some connections close, a client gave up while queued. The test makes
//! the first three accepts fail (`Server::fail_accepts`) and expects the client they were
//! for to be served all the same.
//! expect-fail: a_failed_accept_does_not_stop_the_server, failing_accepts_are_retried_after_a_pause, a_failed_accept_is_reported_on_stderr
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
        for next in (0..hands.len()).cycle() {
            let stream = loop {
                tokio::select! {
                    biased;
                    () = &mut shutdown => return Ok(()),
                    accepted = listener.accept() => match accepted {
                        Ok(stream) => break stream,
                        // Out of file descriptors? Then we cannot serve anyone: give up.
                        Err(error) => return Err(error),
                    },
                }
            };
            if let Ok(stream) = leave(stream) {
                // A worker that has gone (it failed to start) loses its turn.
                let _ = hands[next].send(stream);
            }
        }
        Ok(())
    });
    drop(runtime);
    drop(hands);
    accepted
}
