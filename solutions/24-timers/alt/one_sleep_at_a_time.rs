//! Also right: a timer loop, the shape of a hand-written timer wheel. The timers are
//! sorted by deadline and only the next one is waited for, while the handlers already
//! called run in a `FuturesUnordered`; `select!` drives both, so a slow handler never
//! holds back the next deadline. No lock: the report has one owner, this loop.
//! expect-pass
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    use futures::StreamExt;
    use futures::stream::FuturesUnordered;

    let mut sorted = timers.to_vec();
    sorted.sort_by_key(|timer| timer.deadline);
    let mut next = sorted.into_iter().peekable();
    let mut running = FuturesUnordered::new();
    let mut report = Report::default();
    while let Some(&timer) = next.peek() {
        tokio::select! {
            () = sleep_until(timer.deadline) => {
                next.next();
                report.fired.push(Fired {
                    id: timer.id,
                    deadline: timer.deadline,
                    at: Instant::now(),
                });
                running.push(handler.on_fire(timer.id));
            }
            Some(()) = running.next(), if !running.is_empty() => {}
        }
    }
    while running.next().await.is_some() {}
    report
}
