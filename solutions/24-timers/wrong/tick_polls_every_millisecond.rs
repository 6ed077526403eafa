//! Wrong: the periodic timer checks the clock every millisecond until tick k is due. It
//! keeps the schedule (a late tick fires at once, the next one is due where it always
//! was), but a period of a second costs a thousand wake-ups: the poll budget fails it.
//! expect-fail: a_far_deadline_costs_a_few_polls, ticks_keep_a_period_that_is_not_whole_milliseconds
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    for k in 1..=count {
        let deadline = start + period * k;
        while Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        report.fired.push(Fired {
            id: k,
            deadline,
            at: Instant::now(),
        });
        handler.on_fire(k).await;
    }
    report
}
