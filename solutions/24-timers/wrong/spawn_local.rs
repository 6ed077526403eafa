//! Wrong: one local task per timer, as thread-per-core code might. `spawn_local` needs no
//! `Send`, but it still needs `'static`: the tasks would outlive this call, and the
//! handler (and the tests' fake inside it) is only borrowed.
//! expect-error: E0521
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = std::rc::Rc::new(RefCell::new(Report::default()));
    let mut tasks = Vec::new();
    for &timer in timers {
        let report = std::rc::Rc::clone(&report);
        tasks.push(tokio::task::spawn_local(async move {
            sleep_until(timer.deadline).await;
            report.borrow_mut().fired.push(Fired {
                id: timer.id,
                deadline: timer.deadline,
                at: Instant::now(),
            });
            handler.on_fire(timer.id).await;
        }));
    }
    join_all(tasks).await;
    report.take()
}
