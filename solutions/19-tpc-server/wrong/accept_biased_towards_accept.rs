//! Wrong: `biased;` with the accept branch first, so that connections waiting to be
//! accepted go before the stop. While connections keep coming, or accepts keep failing
//! (the process is out of file descriptors), the accept branch is always ready and
//! `shutdown` is never polled: the server does not stop. The test makes every accept fail
//! and expects `shutdown` to stop the server all the same.
//! expect-fail: failing_accepts_are_retried_after_a_pause
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
                    accepted = listener.accept() => match accepted {
                        Ok(stream) => break stream,
                        // A failed accept is not the end of the server: say so, and
                        // accept again.
                        Err(error) => pause_after(&error).await,
                    },
                    () = &mut shutdown => return Ok(()),
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
