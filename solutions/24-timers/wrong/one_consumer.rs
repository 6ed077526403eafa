//! Wrong: the "fully async" rewrite. No lock: each timer sends its id down a channel when
//! it fires, and one consumer records it and calls the handler. But one consumer runs the
//! handlers one after another, so every timer waits for the handlers of those before it.
//! expect-fail: a_timer_that_cannot_fire_on_time_is_reported_late, every_timer_fires_even_identical_or_already_due, handlers_that_overlap_all_fire_on_time, ten_thousand_timers_fire_at_twenty_ms, timers_fire_in_deadline_order
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let timers_fire = async move {
        join_all(timers.iter().map(|timer| {
            let sender = sender.clone();
            async move {
                sleep_until(timer.deadline).await;
                let _ = sender.send(*timer);
            }
        }))
        .await;
    };
    let consumer = async {
        let mut report = Report::default();
        while let Some(timer) = receiver.recv().await {
            report.fired.push(Fired {
                id: timer.id,
                deadline: timer.deadline,
                at: Instant::now(),
            });
            handler.on_fire(timer.id).await;
        }
        report
    };
    let ((), report) = tokio::join!(timers_fire, consumer);
    report
}
