//! Wrong: keeps the read across rounds with `pin!` and `&mut`, but never starts the next
//! one: after the first line, `select!` polls a finished `async fn` future, which
//! panics ("`async fn` resumed after completion").
//! expect-fail: read_lines_loses_no_line_to_a_heartbeat, read_lines_beats_only_when_idle
//! replaces: read_lines

pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut next = pin!(input.next_line());
    loop {
        tokio::select! {
            line = &mut next => match line {
                Some(line) => lines.push(line),
                None => return lines,
            },
            () = tokio::time::sleep(every) => heartbeat(),
        }
    }
}
