//! Wrong: fixes the deadlock by moving the lock after the handler, so nothing is held
//! across `.await`. But the record is now taken when the handler *finished*: every
//! timer looks late by its handler's time, and the report is in finishing order.
//! expect-fail: a_timer_that_cannot_fire_on_time_is_reported_late, every_timer_fires_even_identical_or_already_due, handlers_that_overlap_all_fire_on_time, ten_thousand_timers_fire_at_twenty_ms, timers_fire_in_deadline_order, timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = RefCell::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        handler.on_fire(timer.id).await;
        report.borrow_mut().fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
    }))
    .await;
    report.into_inner()
}
