//! Wrong: every front compared with the others, cut short. Each candidate, in core order,
//! is checked against the fronts from the last core down and dropped at the first older
//! one. When the fronts fall all the way, or rise all the way, a candidate is dropped at
//! once or the first one wins, so the work looks linear. Fronts that fall over the first
//! half of the cores and rise over the second keep every candidate through half the
//! machine: on 100,000 cores, billions of comparisons, which the test's watchdog stops.
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
        let fronts: Vec<(u64, usize)> = queues
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != core)
            .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
            .collect();
        let victim = fronts.iter().find_map(|&(seq, victim)| {
            let beaten = fronts.iter().rev().any(|&(other, _)| other < seq);
            (!beaten).then_some(victim)
        })?;
        queues[victim].pop_front()
    }
}
