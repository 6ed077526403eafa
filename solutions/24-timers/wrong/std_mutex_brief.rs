//! Wrong for this lab: std's Mutex, locked for one push and never across `.await`. That
//! is the right fix in multi-threaded code (and tokio's docs prefer it to their own Mutex
//! there), and every test passes. But everything here runs on one thread: a RefCell does
//! the same job with no lock at all. The lab forbids it.
//! expect-lesson: Mutex
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = std::sync::Mutex::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        report.lock().unwrap().fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    report.into_inner().unwrap()
}
