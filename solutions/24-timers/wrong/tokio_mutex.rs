//! Wrong for this lab: tokio's Mutex, locked briefly. Nothing hangs (its guard may be
//! held across `.await`, and this one is not even held that long), every test passes, but
//! on one thread the lock protects nothing: each `lock().await` is machinery a RefCell
//! does not need (and a contended one is a wake-up more). The lab forbids it.
//! expect-lesson: Mutex
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = tokio::sync::Mutex::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        report.lock().await.fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    report.into_inner()
}
