//! Wrong: under a backlog of more than 12 steps, a core runs its own newest step first,
//! "still warm in the cache", under both policies. The oldest steps of a busy core then
//! wait for as long as the backlog lasts. The old tests never queued more than 12 steps on
//! a core that runs its own; a queue of 13, 20 or 100 of its own now must be run from the
//! front.
//! expect-fail: long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        match queues[core].len() {
            0 => {}
            backlog if backlog > 12 => return queues[core].pop_back(),
            _ => return queues[core].pop_front(),
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let (_, victim) = queues
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != core)
                    .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
