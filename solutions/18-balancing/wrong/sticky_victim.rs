//! Wrong: a thief remembers the core it robbed last and keeps robbing it while it has
//! steps ("its cache is warm"), looking for the oldest front only when that queue runs
//! dry. The memory has to live somewhere between calls: here a `thread_local!` (which the
//! runner refuses too). Whatever the hiding place, the next call then takes a younger step
//! than the oldest: the tests call `pick` again and again on the same queues.
//! expect-fail: a_lone_old_step_beats_a_backlog, a_thief_does_not_spin, a_thief_steals_from_a_deep_backlog, a_thief_steals_the_oldest_again_and_again, every_steal_of_a_run_follows_the_rule, long_queues_are_served_from_the_front, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps, skewed_run_work_stealing_exactly, skewed_runs_on_8_cores_exactly
//! replaces: solution
use std::cell::Cell;

thread_local! {
    /// (thief, victim) of the latest steal on this thread.
    static LAST: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                if let Some((thief, victim)) = LAST.get()
                    && thief == core
                    && victim < queues.len()
                    && let Some(step) = queues[victim].pop_front()
                {
                    return Some(step);
                }
                let (_, victim) = queues
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != core)
                    .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
                    .min()?;
                LAST.set(Some((core, victim)));
                queues[victim].pop_front()
            }
        }
    }
}
