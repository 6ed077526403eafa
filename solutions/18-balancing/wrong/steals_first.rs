//! Wrong: under work-stealing, a core always takes the oldest step anywhere, even when
//! its own queue has work: one global queue in disguise. Nothing is left idle, but steps
//! move between cores for no reason (each move costs a cold cache in real life).
//! expect-fail: a_core_runs_its_own_oldest_step_first, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        match self {
            Policy::PerConnection => queues[core].pop_front(),
            Policy::WorkStealing => {
                let (_, victim) = queues
                    .iter()
                    .enumerate()
                    .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
