//! Wrong: the thief robs the busiest core, the one with the longest queue (on a tie, the
//! one whose front has waited longest), "to take load off the core that needs it most".
//! When the longest queue also holds the oldest step, that is the same choice; when it
//! does not, a step that has waited longer stays behind a shorter queue.
//! expect-fail: a_lone_old_step_beats_a_backlog, a_thief_steals_the_oldest_again_and_again, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, the_oldest_step_wins_not_the_longest_queue
//! replaces: solution

impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let (_, _, victim) = queues
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != core)
                    .filter_map(|(other, queue)| {
                        Some((std::cmp::Reverse(queue.len()), queue.front()?.seq, other))
                    })
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
