//! Wrong: stealing written for both policies (the `match` on the policy dropped), so
//! thread-per-core balances at every `.await` too. It is work-stealing under another
//! name: a connection's steps leave the core the connection was given.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_small_run_worked_by_hand, a_thief_does_not_spin, per_connection_never_moves_a_step, per_connection_never_takes_another_cores_step, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_per_connection_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly, skewed_work_gives_stealing_a_lower_p99
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
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
