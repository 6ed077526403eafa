//! Wrong: when every queue is empty, the thief spins, re-reading every queue 30 times
//! before it gives up, "in case a step shows up". Nothing can show up: no other core runs
//! while `pick` does. It returns the same answer as the solution, so only the cost shows:
//! the queues count every look, and the tests allow four per queue per call. (A longer
//! spin, or one that never gives up, is stopped by the queues themselves at 100 looks.)
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_thief_does_not_spin
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if self == Policy::PerConnection {
            return queues[core].pop_front();
        }
        for _ in 0..30 {
            if let Some(step) = queues[core].pop_front() {
                return Some(step);
            }
            let oldest = queues
                .iter()
                .enumerate()
                .filter(|&(other, _)| other != core)
                .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
                .min();
            if let Some((_, victim)) = oldest {
                return queues[victim].pop_front();
            }
            std::hint::spin_loop();
        }
        None
    }
}
