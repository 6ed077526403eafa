//! Wrong: the thief walks round the ring of cores until it finds a step, and never
//! gives up: when every queue is empty it spins for ever (and it takes the first step it
//! meets, not the oldest). The queues count every look and stop a pick that looks at one
//! of them 100 times in a single call, with a panic that names the spin, so the tests fail
//! at once instead of hanging.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_lone_old_step_beats_a_backlog, a_small_run_worked_by_hand, a_thief_does_not_spin, a_thief_looks_at_every_other_core, a_thief_looks_at_every_other_core_past_64, a_thief_steals_from_a_deep_backlog, a_thief_steals_the_oldest_again_and_again, a_thief_takes_one_step_from_the_front_of_a_long_queue, an_idle_core_steals_the_oldest_waiting_step, an_idle_core_takes_over_a_waiting_task, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, more_cores_than_connections, nothing_to_run_means_none, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, same_seed_same_result, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly, skewed_work_gives_stealing_a_lower_p99, stealing_never_leaves_a_core_idle_while_a_step_waits, the_oldest_step_wins_not_the_longest_queue, uniform_work_gives_equal_throughput
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        match self {
            Policy::PerConnection => queues[core].pop_front(),
            Policy::WorkStealing => {
                let mut next = core;
                loop {
                    if let Some(step) = queues[next].pop_front() {
                        return Some(step);
                    }
                    next = (next + 1) % queues.len();
                }
            }
        }
    }
}
