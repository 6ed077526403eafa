//! Wrong: leaves out the timers already due when `fire_all` is called (a deadline now or
//! in the past), as if they had expired. A timer that is late is still a timer: it fires
//! at once, and the report shows how late it was. A zero delay is the commonest case.
//! expect-fail: every_timer_fires_even_identical_or_already_due
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let now = Instant::now();
    let report = RefCell::new(Report::default());
    let pending = timers.iter().filter(|timer| timer.deadline > now);
    join_all(pending.map(|timer| async {
        sleep_until(timer.deadline).await;
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
