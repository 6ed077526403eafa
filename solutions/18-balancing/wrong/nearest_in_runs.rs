//! Wrong: a pick that tells a run from a test. In the simulator's runs every waiting
//! step's connection is below twice the number of cores (the tests' loads have two
//! connections per core); the hand-built queues' steps have connections drawn at random.
//! On 5 cores or more, in what looks like a run, the thief takes the nearest non-empty
//! queue instead of the oldest front. Every hand-built test passes; runs are checked step
//! by step against the rule, and on 8 and 64 cores pinned figure by figure.
//! expect-fail: every_steal_of_a_run_follows_the_rule, one_pass_over_the_queues_on_a_huge_machine, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        if self == Policy::PerConnection {
            return None;
        }
        let n = queues.len();
        let fronts: Vec<(u64, usize, usize)> = (0..n)
            .filter(|&other| other != core)
            .filter_map(|other| queues[other].front().map(|r| (r.seq, other, r.conn)))
            .collect();
        let in_a_run = fronts.iter().all(|&(_, _, conn)| conn < 2 * n);
        let victim = if in_a_run && n > 4 {
            let distance = |other: usize| (other + n - core) % n;
            fronts
                .iter()
                .min_by_key(|&&(_, other, _)| distance(other))?
                .1
        } else {
            fronts.iter().min()?.1
        };
        queues[victim].pop_front()
    }
}
