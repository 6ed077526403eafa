//! Wrong: `tokio::time::interval(period)` keeps the schedule, but its first tick
//! completes at once: tick 1 fires at 0 ms instead of one period after the start.
//! expect-fail: a_far_deadline_costs_a_few_polls, a_tick_for_ever_grows_its_report_as_ticks_fire, a_tick_that_runs_late_does_not_shift_the_schedule, ticks_already_due_fire_back_to_back, ticks_fire_on_the_period_not_after_the_handler, ticks_keep_a_period_that_is_not_whole_milliseconds
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut interval = tokio::time::interval(period);
    let mut report = Report::default();
    for k in 1..=count {
        interval.tick().await;
        report.fired.push(Fired {
            id: k,
            deadline: start + period * k,
            at: Instant::now(),
        });
        handler.on_fire(k).await;
    }
    report
}
