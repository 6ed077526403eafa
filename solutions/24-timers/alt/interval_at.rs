//! Also right: a tokio interval that starts one period after the start. Its default
//! behaviour for missed ticks (`Burst`) fires late ticks at once and keeps the original
//! schedule, exactly what `tick` promises.
//! expect-pass
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
