//! Wrong: the thief robs the busiest core, the one with the longest queue (on a tie, the
//! one whose front has waited longest), "to take load off the core that needs it most".
//! When the longest queue also holds the oldest step, that is the same choice; when it
//! does not, a step that has waited longer stays behind a shorter queue.
//! expect-fail: the_oldest_step_wins_not_the_longest_queue
//! replaces: solution

impl Policy {
    pub fn pick(self, core: usize, queues: &mut [VecDeque<Ready>]) -> Option<Ready> {
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
