//! Wrong: skips a tick that is more than two periods late, "rather than burst through a
//! backlog". Ticks a little late still fire, so the schedule looks kept, but after a
//! handler that overruns by ten periods every missed tick is lost. `tick` promises each
//! of the `count` ticks, late ones as soon as possible.
//! expect-fail: ticks_already_due_fire_back_to_back
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    for k in 1..=count {
        let deadline = start + period * k;
        sleep_until(deadline).await;
        let now = Instant::now();
        if now.saturating_duration_since(deadline) > period * 2 {
            continue;
        }
        report.fired.push(Fired {
            id: k,
            deadline,
            at: now,
        });
        handler.on_fire(k).await;
    }
    report
}
