//! Wrong: no race, so nothing is lost, but no heartbeat either: the connection looks
//! dead to the other side while a line is slow to come.
//! expect-fail: read_lines_loses_no_line_to_a_heartbeat, read_lines_beats_only_when_idle
//! replaces: read_lines

pub async fn read_lines<C: Connection>(
    input: &C,
    _every: Duration,
    _heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    while let Some(line) = input.next_line().await {
        lines.push(line);
    }
    lines
}
