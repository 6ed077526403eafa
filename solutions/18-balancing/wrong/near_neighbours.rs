//! Wrong: the thief looks at its four nearest cores only, "cheaper, and kinder to the
//! caches". With five cores or fewer that is every other core, so every test that used
//! at most five passed; with twelve, a step waiting on the far side of the machine is
//! never found while the thief sits idle.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_thief_does_not_spin, a_thief_looks_at_every_other_core, a_thief_looks_at_every_other_core_past_64, a_thief_steals_from_a_deep_backlog, every_steal_of_a_run_follows_the_rule, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
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
                let (_, victim) = (1..n.min(5))
                    .map(|distance| (core + distance) % n)
                    .filter_map(|other| Some((queues[other].front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
