//! Wrong for this lab: the lock, rebuilt from a channel. The report travels through a
//! tokio `mpsc` channel: a timer takes it out, pushes its firing, and sends it back, so
//! whoever has it out of the channel holds the lock. It passes every test (nothing is
//! held across the handler's `.await`), but a channel that carries one value back and
//! forth is a lock under another name, and on one thread the report needs neither: a
//! `RefCell` borrowed for the push. The lab forbids channels.
//! expect-lesson: channels
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let (put_back, take) = tokio::sync::mpsc::unbounded_channel();
    put_back
        .send(Report::default())
        .expect("the receiver is alive");
    let take = RefCell::new(take);
    join_all(timers.iter().map(|timer| {
        let (put_back, take) = (put_back.clone(), &take);
        async move {
            sleep_until(timer.deadline).await;
            let mut report = take
                .borrow_mut()
                .try_recv()
                .expect("the report is back between pushes");
            report.fired.push(Fired {
                id: timer.id,
                deadline: timer.deadline,
                at: Instant::now(),
            });
            put_back.send(report).expect("the receiver is alive");
            handler.on_fire(timer.id).await;
        }
    }))
    .await;
    let report = take.borrow_mut().try_recv().expect("the report is back");
    report
}
