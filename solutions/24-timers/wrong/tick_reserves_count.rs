//! Wrong: reserves room in the report for `count` firings before the first tick. A
//! periodic timer asked for `u32::MAX` ticks runs until it is dropped, and this one asks
//! the allocator for 170 GB first (aborting the process where it is refused); for a
//! million ticks, 40 MB, of which three entries are used before the timer is dropped.
//! expect-fail: a_tick_for_ever_grows_its_report_as_ticks_fire
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report {
        fired: Vec::with_capacity(count as usize),
    };
    for k in 1..=count {
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
