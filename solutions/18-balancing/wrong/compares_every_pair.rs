//! Wrong: the right step, found the slow way: every front is collected, then compared with
//! every other until one is found that no other beats. One look per queue, so the budget
//! of looks cannot see it; but the comparisons grow with the square of the cores. On a
//! machine of 100,000 cores with the fronts in falling order, one steal takes minutes
//! instead of milliseconds, and the test's watchdog stops it after 2 seconds.
//! expect-fail: one_pass_over_the_queues_on_a_huge_machine
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        if self == Policy::PerConnection {
            return None;
        }
        let fronts: Vec<(u64, usize)> = (0..queues.len())
            .filter(|&other| other != core)
            .filter_map(|other| Some((queues[other].front()?.seq, other)))
            .collect();
        let &(_, victim) = fronts
            .iter()
            .find(|&&(seq, _)| fronts.iter().all(|&(other, _)| seq <= other))?;
        queues[victim].pop_front()
    }
}
