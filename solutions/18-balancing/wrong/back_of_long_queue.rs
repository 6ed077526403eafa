//! Wrong: the thief finds the right victim (the oldest front), but from a queue of three
//! steps or more it takes the back, "the step its owner would reach last". That is the
//! newest step there; the one that has waited longest stays. Short queues, the common case
//! in small runs, still give the right answer; a hand-built steal from a queue of five
//! gets step 6 instead of 2.
//! expect-fail: a_thief_steals_from_a_deep_backlog, a_thief_steals_the_oldest_again_and_again, a_thief_takes_one_step_from_the_front_of_a_long_queue, long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps
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
                if queues[victim].len() >= 3 {
                    queues[victim].pop_back()
                } else {
                    queues[victim].pop_front()
                }
            }
        }
    }
}
