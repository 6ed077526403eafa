//! Wrong: the thief searches cores 0 to 63 only (`queues.len().min(64)`), "no machine has
//! more". Every test on 64 cores or fewer passes; on 65, 100 or 128, a step waiting on core
//! 64 or beyond is never stolen, and a younger step below core 64 wins over it. The
//! hand-built tests now try thieves and victims on either side of core 64.
//! expect-fail: a_thief_does_not_spin, a_thief_looks_at_every_other_core_past_64, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let (_, victim) = (0..queues.len().min(64))
                    .filter(|&other| other != core)
                    .filter_map(|other| Some((queues[other].front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
