//! Wrong: every tick waits for its own deadline at the same time, so each one fires on
//! schedule, even while the previous handler is still running. A periodic timer runs
//! one tick at a time: tick 4 must wait for tick 3's slow handler.
//! expect-fail: a_tick_for_ever_grows_its_report_as_ticks_fire, a_tick_that_runs_late_does_not_shift_the_schedule, ticks_already_due_fire_back_to_back
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let timers: Vec<Timer> = (1..=count)
        .map(|k| Timer {
            id: k,
            deadline: start + period * k,
        })
        .collect();
    fire_all(&timers, handler).await
}
