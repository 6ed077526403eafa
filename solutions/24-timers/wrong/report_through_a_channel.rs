//! Wrong for this lab: the firings collected through `std::sync::mpsc`, a queue built for
//! senders on many threads, then drained into the report. Every test passes (a send
//! never waits, so nothing blocks), but everything here runs on one thread, in one
//! `join_all`: a `RefCell<Report>` borrowed for one push does the same with no queue. The
//! lab forbids channels.
//! expect-lesson: channels
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let (sender, receiver) = std::sync::mpsc::channel();
    join_all(timers.iter().map(|timer| {
        let sender = sender.clone();
        async move {
            sleep_until(timer.deadline).await;
            let fired = Fired {
                id: timer.id,
                deadline: timer.deadline,
                at: Instant::now(),
            };
            sender.send(fired).expect("the receiver is alive");
            handler.on_fire(timer.id).await;
        }
    }))
    .await;
    drop(sender);
    Report {
        fired: receiver.into_iter().collect(),
    }
}
