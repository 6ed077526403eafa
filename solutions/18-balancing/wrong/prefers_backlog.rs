//! Wrong: the thief robs a core with a backlog first (the oldest front among queues of two
//! steps or more) and takes a lone step only when no queue has a backlog, "to relieve the
//! busiest cores". A lone step that has waited longest keeps waiting behind younger ones.
//! In small runs the two choices rarely differ; a hand-built case with a lone oldest step
//! next to a backlog of five catches it.
//! expect-fail: a_lone_old_step_beats_a_backlog, a_thief_steals_the_oldest_again_and_again, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let oldest_with = |least: usize, queues: &[RunQueue]| {
                    queues
                        .iter()
                        .enumerate()
                        .filter(|&(other, queue)| other != core && queue.len() >= least)
                        .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
                        .min()
                };
                let (_, victim) = oldest_with(2, queues).or_else(|| oldest_with(1, queues))?;
                queues[victim].pop_front()
            }
        }
    }
}
