//! Wrong: no shared report at all. Each timer's future returns its own record and
//! `join_all` collects them, but in the order the timers were *given*, not the order they
//! fired: the report lists a 37 ms timer before a 5 ms one, and 10,000 timers due at
//! the same instant in the order given, which is not the order their handlers ran in.
//! expect-fail: ten_thousand_timers_fire_at_twenty_ms, timers_fire_in_deadline_order
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let fired = join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        let fired = Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        };
        handler.on_fire(timer.id).await;
        fired
    }))
    .await;
    Report { fired }
}
