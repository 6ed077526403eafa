//! Wrong: the thief leaves alone any core with more than 12 steps waiting, "it is busy
//! enough", and robs the others. The core with the worst backlog, which holds the step
//! that has waited longest, is the one never helped. Caught by a queue of 13, 20 and 100
//! steps whose front is the oldest step.
//! expect-fail: long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues
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
                    .filter(|&other| other != core && queues[other].len() <= 12)
                    .filter_map(|other| Some((queues[other].front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
