//! Wrong: the starter's loop with `biased;`, the line first. It decides which branch
//! is polled first, not whether the loser is dropped: when the heartbeat's timer is the
//! one that is ready, the half-read line is dropped all the same.
//! expect-fail: read_lines_loses_no_line_to_a_heartbeat
//! replaces: read_lines

pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        tokio::select! {
            biased;
            line = input.next_line() => match line {
                Some(line) => lines.push(line),
                None => return lines,
            },
            () = tokio::time::sleep(every) => heartbeat(),
        }
    }
}
