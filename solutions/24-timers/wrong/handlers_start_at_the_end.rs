//! Wrong: fires the timers in deadline order, one sleep at a time, and collects each
//! handler's future to `join_all` them once the last timer has fired. The report's
//! times are right, but an `async fn` does nothing until it is polled: every handler is
//! really called (its body starts) only after the last deadline.
//! expect-fail: a_far_deadline_costs_a_few_polls, a_timer_that_cannot_fire_on_time_is_reported_late, every_timer_fires_even_identical_or_already_due, handlers_that_overlap_all_fire_on_time, timers_fire_in_deadline_order, timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let mut sorted = timers.to_vec();
    sorted.sort_by_key(|timer| timer.deadline);
    let mut report = Report::default();
    let mut handlers = Vec::new();
    for timer in sorted {
        sleep_until(timer.deadline).await;
        report.fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
        handlers.push(handler.on_fire(timer.id));
    }
    join_all(handlers).await;
    report
}
