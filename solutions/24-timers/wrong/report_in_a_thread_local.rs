//! Wrong for this lab: the report kept in a `thread_local!` instead of a `RefCell` the
//! function owns. Every test passes (the report is taken out at the end, so the next call
//! starts empty), but the state now belongs to the thread, not to the call: two
//! `fire_all`s that overlap on one thread (two servers' timers, a timer inside a handler)
//! write into one report, and each takes the other's firings. The runner's default set
//! forbids static items and `thread_local!` in every lab.
//! expect-lesson: static
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    thread_local! {
        static REPORT: RefCell<Report> = RefCell::new(Report::default());
    }
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        REPORT.with(|report| {
            report.borrow_mut().fired.push(Fired {
                id: timer.id,
                deadline: timer.deadline,
                at: Instant::now(),
            })
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    REPORT.with(|report| std::mem::take(&mut *report.borrow_mut()))
}
