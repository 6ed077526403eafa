//! Wrong: one scheduler instead of a sleep per timer. The timers are sorted, only the
//! next deadline is waited for, and each timer due is recorded and its handler pushed
//! into a `FuturesUnordered` that runs them. But the record is taken when the handler is
//! *queued*, and an `async fn` starts only when it is polled: of sixteen timers due at
//! the same instant whose handlers each keep the thread busy for 1 ms, the second is
//! really called 1 ms later than the report says, the last 15 ms later.
//! expect-fail: every_timer_fires_even_identical_or_already_due
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    use futures::StreamExt;
    use futures::stream::FuturesUnordered;

    let mut sorted = timers.to_vec();
    sorted.sort_by_key(|timer| timer.deadline);
    let mut report = Report::default();
    let mut running = FuturesUnordered::new();
    let mut next = 0;
    while next < sorted.len() {
        let mut wait = std::pin::pin!(sleep_until(sorted[next].deadline));
        loop {
            tokio::select! {
                biased;
                () = &mut wait => break,
                Some(()) = running.next() => {}
            }
        }
        let now = Instant::now();
        while next < sorted.len() && sorted[next].deadline <= now {
            let timer = sorted[next];
            report.fired.push(Fired {
                id: timer.id,
                deadline: timer.deadline,
                at: now,
            });
            running.push(handler.on_fire(timer.id));
            next += 1;
        }
    }
    while running.next().await.is_some() {}
    report
}
