//! Wrong: the starter with tokio's Mutex instead of std's. The guard across the handler's
//! `.await` no longer blocks the thread: the other timers wait in `lock().await` instead.
//! Nothing hangs, but the handlers now run one after another, so the timers fire later
//! and later: 10,000 handlers of 1 ms each end 10 s after the deadline, not 1 ms.
//! expect-fail: a_timer_that_cannot_fire_on_time_is_reported_late, every_timer_fires_even_identical_or_already_due, handlers_that_overlap_all_fire_on_time, ten_thousand_timers_fire_at_twenty_ms, timers_fire_in_deadline_order
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = tokio::sync::Mutex::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        let mut report = report.lock().await;
        report.fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    report.into_inner()
}
