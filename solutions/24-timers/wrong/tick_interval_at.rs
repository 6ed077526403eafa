//! Wrong: a tokio interval that starts one period after the start. Its default behaviour
//! for missed ticks (`Burst`) fires a late tick at once and keeps the schedule, exactly
//! what `tick` promises, for every period but one: `interval_at` panics on a zero period
//! ("`period` must be non-zero"), where `tick` promises every tick due at the start, one
//! after the other. A library's precondition is not the function's: check it against
//! what you promised, or write the loop yourself.
//! expect-fail: ticks_already_due_fire_back_to_back
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut interval = tokio::time::interval_at(start + period, period);
    let mut report = Report::default();
    for k in 1..=count {
        interval.tick().await;
        report.fired.push(Fired {
            id: k,
            deadline: start + period * k,
            at: Instant::now(),
        });
        handler.on_fire(k).await;
    }
    report
}
