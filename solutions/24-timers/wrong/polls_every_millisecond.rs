//! Wrong: each timer wakes every millisecond to check the clock, instead of sleeping
//! until its deadline. Deadlines are whole milliseconds and tokio's timer has 1 ms
//! resolution, so every handler is called on time. But a timer due in 9 s wakes 9,000
//! times for nothing, and 10,000 timers wake 200,000 times in their 20 ms: the poll
//! budgets fail it.
//! expect-fail: a_far_deadline_costs_a_few_polls, ten_thousand_timers_fire_at_twenty_ms, timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = RefCell::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        while Instant::now() < timer.deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
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
