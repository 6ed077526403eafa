//! Wrong: the thief robs the longest queue, except when a front is step 4 or 50, the
//! oldest steps of the old hand-built tests, which it takes. Written to pass tests, not to
//! follow the rule. The tests now use other numbers, and 600 generated queue sets besides,
//! so no list of special cases can keep up.
//! expect-fail: a_lone_old_step_beats_a_backlog, a_thief_steals_from_a_deep_backlog, a_thief_steals_the_oldest_again_and_again, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let special = (0..queues.len()).find(|&other| {
                    other != core
                        && queues[other]
                            .front()
                            .is_some_and(|r| r.seq == 4 || r.seq == 50)
                });
                let victim = match special {
                    Some(other) => other,
                    None => (0..queues.len())
                        .filter(|&other| other != core && !queues[other].is_empty())
                        .max_by_key(|&other| (queues[other].len(), std::cmp::Reverse(other)))?,
                };
                queues[victim].pop_front()
            }
        }
    }
}
