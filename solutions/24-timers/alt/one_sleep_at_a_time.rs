//! Also right: a timer loop, the shape of a hand-written timer wheel. The timers are
//! sorted by deadline and only the next one is waited for, while the handlers already
//! called run in a `FuturesUnordered`; `select!` drives both, so a slow handler never
//! holds back the next deadline. Each handler's future records its own firing when it
//! starts: an async block runs only when it is polled, so a record taken in the loop,
//! as the handler is queued, would say 15 ms for a handler that a busy neighbour holds
//! back to 16 (`wrong/records_when_queued.rs`).
//! expect-pass
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    use futures::StreamExt;
    use futures::stream::FuturesUnordered;

    let mut sorted = timers.to_vec();
    sorted.sort_by_key(|timer| timer.deadline);
    let mut next = sorted.into_iter().peekable();
    let report = RefCell::new(Report::default());
    let report = &report;
    let mut running = FuturesUnordered::new();
    while let Some(&timer) = next.peek() {
        tokio::select! {
            () = sleep_until(timer.deadline) => {
                next.next();
                running.push(async move {
                    report.borrow_mut().fired.push(Fired {
                        id: timer.id,
                        deadline: timer.deadline,
                        at: Instant::now(),
                    });
                    handler.on_fire(timer.id).await;
                });
            }
            Some(()) = running.next(), if !running.is_empty() => {}
        }
    }
    while running.next().await.is_some() {}
    report.take()
}
