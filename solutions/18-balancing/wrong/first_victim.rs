//! Wrong: the thief takes the front of the first non-empty queue it finds, in core
//! order, not the step that has waited longest. Low-numbered cores are robbed first and
//! a step on a high-numbered core can wait while younger ones are stolen.
//! expect-fail: a_thief_looks_at_every_other_core, an_idle_core_steals_the_oldest_waiting_step, the_oldest_step_wins_not_the_longest_queue
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [VecDeque<Ready>]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let victim =
                    (0..queues.len()).find(|&other| other != core && !queues[other].is_empty())?;
                queues[victim].pop_front()
            }
        }
    }
}
