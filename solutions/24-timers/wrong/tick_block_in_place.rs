//! Wrong: waits for each tick with `block_in_place` around `std::thread::sleep`.
//! `block_in_place` hands the worker's other tasks to another worker first, so it only
//! exists on the multi-threaded runtime; on one thread it panics ("can call blocking
//! only when running on the multi-threaded runtime"). And the wait would be real time.
//! expect-fail: a_far_deadline_costs_a_few_polls, a_tick_for_ever_grows_its_report_as_ticks_fire, a_tick_that_runs_late_does_not_shift_the_schedule, ticks_already_due_fire_back_to_back, ticks_fire_on_the_period_not_after_the_handler, ticks_keep_a_period_that_is_not_whole_milliseconds
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    for k in 1..=count {
        let deadline = start + period * k;
        tokio::task::block_in_place(|| {
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()))
        });
        report.fired.push(Fired {
            id: k,
            deadline,
            at: Instant::now(),
        });
        handler.on_fire(k).await;
    }
    report
}
