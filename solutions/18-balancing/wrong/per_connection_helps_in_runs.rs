//! Wrong: per connection that tells a run from a test, and steals in runs only. In the
//! simulator every waiting step's connection is below twice the number of cores (two
//! connections per core in the tests' loads); in the hand-built queues, connections are
//! drawn at random. On 5 cores or more, in what looks like a run, an idle per-connection
//! core takes its right-hand neighbour's front. Caught by the trace of runs on 8 and 64
//! cores (every step where its connection lives) and by their pinned figures.
//! expect-fail: per_connection_never_moves_a_step, per_connection_never_takes_another_cores_step, pick_follows_the_rule_on_generated_queues, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        let n = queues.len();
        match self {
            Policy::PerConnection => {
                let next = (core + 1) % n;
                let in_a_run = queues[next].front().is_some_and(|r| r.conn < 2 * n);
                if in_a_run && n > 4 {
                    return queues[next].pop_front();
                }
                None
            }
            Policy::WorkStealing => {
                let (_, victim) = (0..n)
                    .filter(|&other| other != core)
                    .filter_map(|other| Some((queues[other].front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
