//! Wrong: a timer wheel with a slot per millisecond, keyed by a `u32` count of
//! milliseconds since the start. A deadline between two milliseconds goes into the slot
//! before it (7.6 ms fires at 7 ms), and one more than 49.7 days away wraps around to a
//! near slot (50 days fires after 7 hours). A timer must never fire early: round up, and
//! keep the deadline itself.
//! expect-fail: timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    use futures::StreamExt;
    use futures::stream::FuturesUnordered;
    use std::collections::BTreeMap;

    let start = Instant::now();
    let mut wheel: BTreeMap<u32, Vec<Timer>> = BTreeMap::new();
    for &timer in timers {
        let slot = timer.deadline.saturating_duration_since(start).as_millis() as u32;
        wheel.entry(slot).or_default().push(timer);
    }
    let report = RefCell::new(Report::default());
    let report = &report;
    let mut running = FuturesUnordered::new();
    while let Some((slot, due)) = wheel.pop_first() {
        let when = start + Duration::from_millis(u64::from(slot));
        let mut wait = std::pin::pin!(sleep_until(when));
        loop {
            tokio::select! {
                biased;
                () = &mut wait => break,
                Some(()) = running.next() => {}
            }
        }
        for timer in due {
            running.push(async move {
                report.borrow_mut().fired.push(Fired {
                    id: timer.id,
                    deadline: timer.deadline,
                    at: Instant::now(),
                });
                handler.on_fire(timer.id).await;
            });
        }
    }
    while running.next().await.is_some() {}
    report.take()
}
