//! Wrong: cancel safe, since the read is made once and kept, but driven by a clock: every
//! millisecond it polls the read with a waker of its own (`Waker::noop()`) and checks
//! whether a heartbeat is due. Lines and heartbeats come at the right millisecond, so
//! every timing check passes; the tests count the polls (160 ms of reading, about 160
//! instead of 13). The read's own wake-ups, and a timer for the heartbeat, are enough.
//! expect-fail: read_lines_loses_no_line_to_a_heartbeat, read_lines_beats_only_when_idle
//! replaces: read_lines

use std::task::{Context, Poll, Waker};

pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut next = pin!(input.next_line());
    let mut quiet = Context::from_waker(Waker::noop());
    let mut last = tokio::time::Instant::now();
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    loop {
        tick.tick().await;
        while let Poll::Ready(line) = next.as_mut().poll(&mut quiet) {
            match line {
                Some(line) => {
                    lines.push(line);
                    next.set(input.next_line());
                    last = tokio::time::Instant::now();
                }
                None => return lines,
            }
        }
        if last.elapsed() >= every {
            heartbeat();
            last = tokio::time::Instant::now();
        }
    }
}
