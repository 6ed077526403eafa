//! Wrong: each timer waits in slices of at most a second, looking at the clock after
//! each one. Every timer fires on time, and a timer a few seconds away costs a few
//! wake-ups, but one a day away wakes 86,400 times for nothing: the poll budget of a
//! far deadline fails it. Sleep until the deadline, however far.
//! expect-fail: a_far_deadline_costs_a_few_polls, timers_never_fire_early_between_milliseconds_or_days_away
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = RefCell::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        loop {
            let now = Instant::now();
            if now >= timer.deadline {
                break;
            }
            let slice = (timer.deadline - now).min(Duration::from_secs(1));
            tokio::time::sleep(slice).await;
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
