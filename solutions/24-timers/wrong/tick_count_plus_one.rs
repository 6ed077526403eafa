//! Wrong: loops over `1..count + 1`. Right for every count but the largest: with
//! `u32::MAX` ("until dropped") the addition overflows, a panic before the first tick in
//! a debug build, and an empty range (no tick at all) in a release build.
//! expect-fail: a_tick_for_ever_grows_its_report_as_ticks_fire
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    for k in 1..count + 1 {
        let deadline = start + period * k;
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
