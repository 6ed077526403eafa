//! Wrong: the acceptor unwraps the hand-off (`send(…).expect("worker gone")`). It never
//! fails while every worker runs; once a handler's panic has taken a worker down, the next
//! connection dealt to it panics the acceptor, and the server stops serving the workers
//! that are still alive, and `run` reports the acceptor's panic instead of the handler's.
//! A dead worker loses its turns; the others serve on. The test makes a handler panic and
//! expects the other worker to go on answering.
//! expect-fail: a_panicking_handler_is_reported
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
                        // A failed accept is not the end of the server: say so, and
                        // accept again.
                        Err(error) => pause_after(&error).await,
                    },
                }
            };
            if let Ok(stream) = leave(stream) {
                hands[next].send(stream).expect("worker gone");
            }
        }
        Ok(())
    });
    drop(runtime);
    drop(hands);
    accepted
}
