//! Wrong: the acceptor makes tokio's listener from the bound socket itself
//! (`TcpListener::from_std(listener.socket)`), around the given `Listening::listen` and
//! `Listener::accept`. It accepts just as well; but the given listener is where the tests
//! make accepts fail (`Server::fail_accepts`), so what the server does when accept(2) fails
//! is never tested, and the failures asked for never happen. The test makes every accept
//! fail and expects the client never to be served.
//! expect-fail: failing_accepts_are_retried_after_a_pause, a_failed_accept_is_reported_on_stderr
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
        // tokio's listener, straight from the bound socket.
        let listener = TcpListener::from_std(listener.socket)?;
        for next in (0..hands.len()).cycle() {
            let stream = loop {
                tokio::select! {
                    biased;
                    () = &mut shutdown => return Ok(()),
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => break stream,
                        // A failed accept is not the end of the server: say so, and
                        // accept again.
                        Err(error) => pause_after(&error).await,
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
