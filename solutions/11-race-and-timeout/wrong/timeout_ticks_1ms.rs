//! Wrong: `timeout_ticks.rs` with a finer clock: it looks at the time every millisecond,
//! so it gives up at exactly the limit, and every timing test passes. But it wakes up a
//! thousand times a second for as long as it waits, where a timer set for the whole limit
//! wakes it once: the tests count the polls (about 100 for 100 ms of waiting, instead of 2).
//! expect-fail: with_timeout_gives_up_at_any_limit, with_timeout_gives_up_at_the_limit, with_timeout_returns_what_finishes_in_time
//! replaces: with_timeout

pub async fn with_timeout<F: Future>(limit: Duration, fut: F) -> Result<F::Output, TimedOut> {
    let start = tokio::time::Instant::now();
    let mut fut = std::pin::pin!(fut);
    loop {
        tokio::select! {
            output = &mut fut => return Ok(output),
            () = tokio::time::sleep(Duration::from_millis(1)) => {
                if start.elapsed() >= limit {
                    return Err(TimedOut);
                }
            }
        }
    }
}
