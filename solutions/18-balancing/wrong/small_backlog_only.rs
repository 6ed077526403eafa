//! Wrong: the thief steals only while at most 16 steps wait in all, "beyond that, every
//! core is busy anyway". Not so: a core can be idle with a deep backlog elsewhere, and that
//! is exactly when stealing matters most. The light runs of the tests never queue that
//! many steps; a hand-built case with 24 waiting does.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_thief_does_not_spin, a_thief_looks_at_every_other_core, a_thief_looks_at_every_other_core_past_64, a_thief_steals_from_a_deep_backlog, long_queues_are_served_from_the_front, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, skewed_runs_on_64_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let waiting: usize = queues.iter().map(RunQueue::len).sum();
                if waiting > 16 {
                    return None;
                }
                let (_, victim) = queues
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != core)
                    .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
