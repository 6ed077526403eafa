//! Wrong: a core runs its own queue newest first (last in, first out), stealing
//! correctly otherwise. FIFO violated: under load the oldest step of a busy core can
//! wait for ever while newer ones keep jumping ahead of it. (Fork-join schedulers such
//! as Cilk's do run their own deque LIFO, for throughput; a server's requests need FIFO,
//! and tokio's local queue is FIFO apart from a one-task LIFO slot.)
//! expect-fail: a_core_runs_its_own_oldest_step_first, a_small_run_worked_by_hand, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_per_connection_exactly, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_back() {
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
                queues[victim].pop_front()
            }
        }
    }
}
