//! Wrong (an edit to the given simulator): while any step waits, every idle core counts as
//! wasted, even when there are more idle cores than waiting steps. One waiting step can
//! keep only one idle core busy, so that overstates per connection's waste: in the small
//! run worked by hand, two cores idle beside one waiting step count 20 core-µs, not 10.
//! expect-fail: a_small_run_worked_by_hand, skewed_run_per_connection_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: idle
fn idle_while_waiting(running: &[Slot], queues: &[RunQueue], now: Micros, next: Micros) -> Micros {
    let idle = running.iter().filter(|r| r.is_none()).count() as u64;
    let waiting = queues.iter().map(|q| q.steps.len()).sum::<usize>() as u64;
    if waiting > 0 {
        idle * next.saturating_sub(now)
    } else {
        0
    }
}
