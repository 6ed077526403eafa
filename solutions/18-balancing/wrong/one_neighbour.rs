//! Wrong: an idle core steals only from its right-hand neighbour, as in a ring. With two
//! cores that is everyone; with three or more, a core can sit idle while a step waits two
//! cores away.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_lone_old_step_beats_a_backlog, a_small_run_worked_by_hand, a_thief_does_not_spin, a_thief_looks_at_every_other_core, a_thief_looks_at_every_other_core_past_64, a_thief_steals_from_a_deep_backlog, a_thief_steals_the_oldest_again_and_again, a_thief_takes_one_step_from_the_front_of_a_long_queue, an_idle_core_steals_the_oldest_waiting_step, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly, stealing_never_leaves_a_core_idle_while_a_step_waits, the_oldest_step_wins_not_the_longest_queue
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let neighbour = (core + 1) % queues.len();
                queues[neighbour].pop_front()
            }
        }
    }
}
