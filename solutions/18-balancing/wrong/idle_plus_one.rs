//! Wrong (an edit to the given simulator): idle time is counted from `now` to `next`
//! inclusive, one microsecond too many for each interval in which a core sat idle while a
//! step waited. Per connection looks a little worse than it was; work-stealing, which
//! never idles, is unchanged, so the comparison still "passes". The small run worked by
//! hand expects 10 core-µs idle per connection, and gets 11.
//! expect-fail: a_small_run_worked_by_hand, skewed_run_per_connection_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: idle
fn idle_while_waiting(running: &[Slot], queues: &[RunQueue], now: Micros, next: Micros) -> Micros {
    let idle = running.iter().filter(|r| r.is_none()).count() as u64;
    let waiting = queues.iter().map(|q| q.steps.len()).sum::<usize>() as u64;
    idle.min(waiting) * (next.saturating_sub(now) + 1)
}
