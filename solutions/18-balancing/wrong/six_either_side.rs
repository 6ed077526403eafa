//! Wrong: the thief looks at the six cores on either side of it only, "cheaper on a big
//! machine". Up to 13 cores that is every core; on 16 or 64, a step waiting on the far side
//! is never found. The hand-built tests try thieves and victims on 16 and 64 cores.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_thief_looks_at_every_other_core, a_thief_looks_at_every_other_core_past_64, every_steal_of_a_run_follows_the_rule, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, skewed_runs_on_64_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let n = queues.len();
                let reach = 6.min(n / 2);
                let (_, victim) = (1..=reach)
                    .flat_map(|d| [(core + d) % n, (core + n - d) % n])
                    .filter_map(|other| Some((queues[other].front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
