//! Wrong: cancel safe, but the heartbeat comes from `tokio::time::interval`, which
//! ticks at once and then on a fixed beat, lines or not. The heartbeat is due `every`
//! after the last line or heartbeat.
//! expect-fail: read_lines_loses_no_line_to_a_heartbeat, read_lines_beats_only_when_idle
//! replaces: read_lines

pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut next = pin!(input.next_line());
    let mut ticks = tokio::time::interval(every);
    loop {
        tokio::select! {
            line = &mut next => match line {
                Some(line) => {
                    lines.push(line);
                    next.set(input.next_line());
                }
                None => return lines,
            },
            _ = ticks.tick() => heartbeat(),
        }
    }
}
