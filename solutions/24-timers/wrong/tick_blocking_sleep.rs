//! Wrong: waits for each tick with `std::thread::sleep` on tokio's blocking pool, "so as
//! not to block the runtime". The wait is real time, not the runtime's: in paused time
//! the clock stands still while a blocking task runs, so every tick fires at once, and
//! the waits add up to far more than the watchdog allows. In real time it would keep
//! the schedule only as well as the clocks agree, with a thread per wait.
//! expect-fail: a_far_deadline_costs_a_few_polls, a_tick_for_ever_grows_its_report_as_ticks_fire, a_tick_that_runs_late_does_not_shift_the_schedule, ticks_already_due_fire_back_to_back, ticks_fire_on_the_period_not_after_the_handler, ticks_keep_a_period_that_is_not_whole_milliseconds
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    for k in 1..=count {
        let deadline = start + period * k;
        let wait = deadline.saturating_duration_since(Instant::now());
        tokio::task::spawn_blocking(move || std::thread::sleep(wait))
            .await
            .expect("the sleeping thread does not panic");
        report.fired.push(Fired {
            id: k,
            deadline,
            at: Instant::now(),
        });
        handler.on_fire(k).await;
    }
    report
}
