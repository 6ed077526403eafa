//! Wrong: the thief finds the queue whose front has waited longest, then takes that
//! queue's newest step, from the back. Stealing from the wrong end: the step that has
//! waited longest keeps waiting, and a step that just became ready jumps ahead of it.
//! expect-fail: a_thief_does_not_spin, a_thief_steals_from_a_deep_backlog, a_thief_steals_the_oldest_again_and_again, a_thief_takes_one_step_from_the_front_of_a_long_queue, an_idle_core_steals_the_oldest_waiting_step, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_work_stealing_exactly, skewed_runs_on_8_cores_exactly, the_oldest_step_wins_not_the_longest_queue
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let (_, victim) = queues
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != core)
                    .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
                    .min()?;
                queues[victim].pop_back()
            }
        }
    }
}
