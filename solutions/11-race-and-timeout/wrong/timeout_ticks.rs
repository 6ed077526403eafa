//! Wrong: a timeout that looks at the clock every 10 ms. It is exact when the limit is
//! a multiple of 10 ms, and late by up to 10 ms otherwise (the 37 ms test); and it wakes
//! up ten times for 100 ms of waiting (the poll budget of the other tests). A timer set
//! for the whole limit is exact, and wakes it once.
//! expect-fail: with_timeout_gives_up_at_any_limit, with_timeout_gives_up_at_the_limit, with_timeout_returns_what_finishes_in_time
//! replaces: with_timeout

pub async fn with_timeout<F: Future>(limit: Duration, fut: F) -> Result<F::Output, TimedOut> {
    let start = tokio::time::Instant::now();
    let mut fut = std::pin::pin!(fut);
    loop {
        tokio::select! {
            output = &mut fut => return Ok(output),
            () = tokio::time::sleep(Duration::from_millis(10)) => {
                if start.elapsed() >= limit {
                    return Err(TimedOut);
                }
            }
        }
    }
}
