//! Wrong: a scheduler that saves wake-ups. When it wakes for one deadline, it also fires
//! every timer due within the next millisecond. The tests' deadlines are whole
//! milliseconds, so that looks harmless, but a timer due at 11 ms fires at 10 ms: a
//! timer may fire late (the thread was busy), never early.
//! expect-fail: timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    use futures::StreamExt;
    use futures::stream::FuturesUnordered;

    const SLACK: Duration = Duration::from_millis(1);
    let mut sorted = timers.to_vec();
    sorted.sort_by_key(|timer| timer.deadline);
    let report = RefCell::new(Report::default());
    let report = &report;
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
        let horizon = Instant::now() + SLACK;
        while next < sorted.len() && sorted[next].deadline <= horizon {
            let timer = sorted[next];
            running.push(async move {
                report.borrow_mut().fired.push(Fired {
                    id: timer.id,
                    deadline: timer.deadline,
                    at: Instant::now(),
                });
                handler.on_fire(timer.id).await;
            });
            next += 1;
        }
    }
    while running.next().await.is_some() {}
    report.take()
}
