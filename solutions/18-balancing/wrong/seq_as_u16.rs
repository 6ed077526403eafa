//! Wrong: the fronts are compared as `seq as u16`, "a compact key". Every seq below 65,536
//! compares right, and the old tests used small ones; a run of a few seconds passes 65,536
//! steps, and then step 65,541 looks younger than step 10. Caught by hand-built queues
//! with seqs past 2^16 and 2^32, and by generated ones that straddle those boundaries.
//! expect-fail: one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let (_, victim) = (0..queues.len())
                    .filter(|&other| other != core)
                    .filter_map(|other| Some((queues[other].front()?.seq as u16, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
