//! Wrong: sleeps a period minus the time the last handler took. That repairs the drift
//! while handlers are shorter than a period, but after a slow one (45 ms > 20 ms) the
//! subtraction saturates at zero and the lost time is never made up: from tick 4 on,
//! every tick comes 25 ms late, for ever.
//! expect-fail: a_tick_that_runs_late_does_not_shift_the_schedule, ticks_already_due_fire_back_to_back, ticks_keep_a_period_that_is_not_whole_milliseconds
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    let mut spent = Duration::ZERO;
    for k in 1..=count {
        tokio::time::sleep(period.saturating_sub(spent)).await;
        report.fired.push(Fired {
            id: k,
            deadline: start + period * k,
            at: Instant::now(),
        });
        let began = Instant::now();
        handler.on_fire(k).await;
        spent = began.elapsed();
    }
    report
}
