//! Wrong: waits for each deadline by checking the clock and yielding. In real time that
//! burns a core; in paused time it is worse: the runtime is never idle, so tokio never
//! moves its clock forward and the deadline never comes. The tests' poll budget ends it.
//! expect-fail: ten_thousand_timers_fire_at_twenty_ms, timers_fire_in_deadline_order, handlers_that_overlap_all_fire_on_time
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
