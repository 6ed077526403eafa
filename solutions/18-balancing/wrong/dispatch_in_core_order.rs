//! Wrong (an edit to the given simulator): idle cores ask `pick` in core order, 0 first,
//! instead of those with steps of their own first. A low-numbered core with nothing of its
//! own then steals the step its owner, idle at the same instant, was about to run: a
//! migration for nothing. The small run worked by hand expects one migration, not two.
//! expect-fail: a_small_run_worked_by_hand, every_steal_of_a_run_follows_the_rule, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: dispatch_order
fn dispatch_order(running: &[Slot], _queues: &[RunQueue]) -> Vec<usize> {
    (0..running.len())
        .filter(|&c| running[c].is_none())
        .collect()
}
