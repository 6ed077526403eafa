//! Also right: the same loop with `tokio::time::timeout` around `&mut next`. Each round
//! is a race between the read, kept alive across rounds, and a fresh timer of `every`.
//! expect-pass
//! replaces: read_lines

pub async fn read_lines<C: Connection>(
    input: &C,
    every: Duration,
    mut heartbeat: impl FnMut(),
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut next = pin!(input.next_line());
    loop {
        match tokio::time::timeout(every, &mut next).await {
            Ok(Some(line)) => {
                lines.push(line);
                next.set(input.next_line());
            }
            Ok(None) => return lines,
            Err(_elapsed) => heartbeat(),
        }
    }
}
