//! Wrong: a scheduler over a `BTreeSet` of `(deadline, id)`, always the earliest first.
//! Each handler is recorded when it is really called, and the timers fire on time. But a
//! set keeps one of two equal entries: two identical timers (same id, same deadline),
//! which are two timers, fire once.
//! expect-fail: every_timer_fires_even_identical_or_already_due
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    use futures::StreamExt;
    use futures::stream::FuturesUnordered;
    use std::collections::BTreeSet;

    let mut queue: BTreeSet<(Instant, u32)> = timers
        .iter()
        .map(|timer| (timer.deadline, timer.id))
        .collect();
    let report = RefCell::new(Report::default());
    let report = &report;
    let mut running = FuturesUnordered::new();
    while let Some(&(deadline, _)) = queue.first() {
        let mut wait = std::pin::pin!(sleep_until(deadline));
        loop {
            tokio::select! {
                biased;
                () = &mut wait => break,
                Some(()) = running.next() => {}
            }
        }
        let now = Instant::now();
        while let Some(&(deadline, id)) = queue.first() {
            if deadline > now {
                break;
            }
            queue.pop_first();
            running.push(async move {
                report.borrow_mut().fired.push(Fired {
                    id,
                    deadline,
                    at: Instant::now(),
                });
                handler.on_fire(id).await;
            });
        }
    }
    while running.next().await.is_some() {}
    report.take()
}
