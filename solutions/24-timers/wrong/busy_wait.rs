//! Wrong: waits for each deadline by checking the clock and yielding. In real time that
//! burns a core; in paused time it is worse: the runtime is never idle, so tokio never
//! moves its clock forward and the deadline never comes. The tests' poll budget ends it.
//! expect-fail: a_far_deadline_costs_a_few_polls, a_timer_that_cannot_fire_on_time_is_reported_late, every_timer_fires_even_identical_or_already_due, handlers_that_overlap_all_fire_on_time, ten_thousand_timers_fire_at_twenty_ms, timers_fire_in_deadline_order, timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = RefCell::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        while Instant::now() < timer.deadline {
            tokio::task::yield_now().await;
        }
        report.borrow_mut().fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    report.into_inner()
}
