//! Wrong: the thief takes half of its victim's queue at once, as tokio's does: it finds
//! the right victim (the oldest front), returns that front, and moves the next steps of the
//! half into its own queue for later. Fewer steals in a real runtime; here a thief takes
//! exactly one step, and the steps it moved jump the queue on the thief's core. Runs on
//! small machines rarely build queues long enough to show it; the hand-built tests check
//! the queues left after a steal from a long queue and name the steps that moved.
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
                let half = queues[victim].len().div_ceil(2);
                let first = queues[victim].pop_front();
                for _ in 1..half {
                    let moved = queues[victim].pop_front()?;
                    queues[core].push_back(moved);
                }
                first
            }
        }
    }
}
