//! Wrong: computes tick k's deadline in whole milliseconds, `period.as_millis() * k`.
//! Exact for a period of 20 ms, but a 60 Hz period (16.667 ms) loses its 0.667 ms on
//! every tick: tick 60 is due at 960 ms instead of 1000.02 ms, and fires 40 ms early.
//! expect-fail: ticks_keep_a_period_that_is_not_whole_milliseconds
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let period_ms = period.as_millis() as u64;
    let mut report = Report::default();
    for k in 1..=count {
        let deadline = start + Duration::from_millis(period_ms * u64::from(k));
        sleep_until(deadline).await;
        report.fired.push(Fired {
            id: k,
            deadline,
            at: Instant::now(),
        });
        handler.on_fire(k).await;
    }
    report
}
