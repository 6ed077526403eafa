//! Also right: an `interval` does the heartbeat after all, if it starts one period from
//! now (`interval_at`, not `interval`, whose first tick is at once) and is `reset` on
//! every line. Its next tick is then always `every` after the last line or heartbeat,
//! the same rule as a fresh `sleep(every)` each round (compare `wrong/read_interval.rs`).
//! expect-pass
//! replaces: read_lines

pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut next = pin!(input.next_line());
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tokio::select! {
            line = &mut next => match line {
                Some(line) => {
                    lines.push(line);
                    next.set(input.next_line());
                    beat.reset(); // the next heartbeat is due `every` from now
                }
                None => return lines,
            },
            _ = beat.tick() => heartbeat(),
        }
    }
}
