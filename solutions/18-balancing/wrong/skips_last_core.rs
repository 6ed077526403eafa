//! Wrong: an off-by-one in the loop over victims, `0..queues.len() - 1`, so nobody ever
//! steals from the last core: its backlog waits while other cores sit idle.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_lone_old_step_beats_a_backlog, a_thief_does_not_spin, a_thief_looks_at_every_other_core, a_thief_looks_at_every_other_core_past_64, a_thief_steals_from_a_deep_backlog, a_thief_steals_the_oldest_again_and_again, a_thief_takes_one_step_from_the_front_of_a_long_queue, an_idle_core_steals_the_oldest_waiting_step, every_steal_of_a_run_follows_the_rule, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly, skewed_work_gives_stealing_a_lower_p99, stealing_never_leaves_a_core_idle_while_a_step_waits, the_oldest_step_wins_not_the_longest_queue
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let mut oldest: Option<(u64, usize)> = None;
                for other in 0..queues.len() - 1 {
                    if other == core {
                        continue;
                    }
                    if let Some(step) = queues[other].front() {
                        if oldest.is_none_or(|(seq, _)| step.seq < seq) {
                            oldest = Some((step.seq, other));
                        }
                    }
                }
                queues[oldest?.1].pop_front()
            }
        }
    }
}
