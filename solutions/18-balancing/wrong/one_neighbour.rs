//! Wrong: an idle core steals only from its right-hand neighbour, as in a ring. With two
//! cores that is everyone; with three or more, a core can sit idle while a step waits two
//! cores away.
//! expect-fail: a_thief_looks_at_every_other_core, an_idle_core_steals_the_oldest_waiting_step, stealing_never_leaves_a_core_idle_while_a_step_waits, the_oldest_step_wins_not_the_longest_queue
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [VecDeque<Ready>]) -> Option<Ready> {
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
