//! Wrong: reserves room for the first 20,000 firings (or `count`, if fewer) before the
//! first tick, "a sensible initial capacity". A timer that runs until it is dropped holds
//! 800 KB from its start however few times it fires: a thousand of them, one per idle
//! connection, hold 800 MB. The test drops a tick of a million after three firings and
//! allows 64 KiB.
//! expect-fail: a_tick_for_ever_grows_its_report_as_ticks_fire
//! replaces: tick

pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report {
        fired: Vec::with_capacity(count.min(20_000) as usize),
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
