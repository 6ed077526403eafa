//! Wrong: stealing written for both policies (the `match` on the policy dropped), so
//! thread-per-core balances at every `.await` too. It is work-stealing under another
//! name: a connection's steps leave the core the connection was given.
//! expect-fail: per_connection_never_takes_another_cores_step, per_connection_never_moves_a_step, skewed_work_gives_stealing_a_lower_p99
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [VecDeque<Ready>]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        let (_, victim) = queues
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != core)
            .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
            .min()?;
        queues[victim].pop_front()
    }
}
