//! Also right: the solution with the timers handed to `join_all` last first, so timers
//! due at the same instant fire in the reverse of the order given. `fire_all` promises
//! no order among them (the solution itself keeps the order given for a hundred such
//! timers, not for ten thousand: tokio's cooperative budget lets one task see about 128
//! timers fire per poll, and sends the rest round again), only that the report lists the
//! firings in the order the handlers were really called.
//! expect-pass
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = RefCell::new(Report::default());
    join_all(timers.iter().rev().map(|timer| async {
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
