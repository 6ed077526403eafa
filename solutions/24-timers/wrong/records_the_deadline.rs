//! Wrong: records each firing at its deadline (`at: timer.deadline`) instead of reading
//! the clock. In paused time, where nothing here makes a timer late, the report looks
//! perfect; but it can no longer show lateness, which is what it is for. When a handler
//! keeps the thread busy and the next timers fire late, the report still says "on time".
//! expect-fail: a_timer_that_cannot_fire_on_time_is_reported_late, every_timer_fires_even_identical_or_already_due, timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = RefCell::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        report.borrow_mut().fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: timer.deadline,
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    report.into_inner()
}
