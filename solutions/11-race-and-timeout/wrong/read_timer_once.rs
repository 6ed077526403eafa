//! Wrong: keeps the read across rounds, and the timer too: one `sleep`, pinned before
//! the loop. Once it has fired it is ready on every poll, so the loop calls
//! `heartbeat()` again and again at the same instant, and tokio's paused clock cannot
//! move on. The tests' heartbeat stops it at 1000.
//! expect-fail: read_lines_loses_no_line_to_a_heartbeat, read_lines_beats_only_when_idle
//! replaces: read_lines

pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut next = pin!(input.next_line());
    let mut timer = pin!(tokio::time::sleep(every));
    loop {
        tokio::select! {
            line = &mut next => match line {
                Some(line) => {
                    lines.push(line);
                    next.set(input.next_line());
                }
                None => return lines,
            },
            () = &mut timer => heartbeat(),
        }
    }
}
