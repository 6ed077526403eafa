//! Wrong: work-stealing is right, but per connection "helps out" too when another core has
//! a real backlog (three steps or more): thread-per-core then steals after all. The point
//! of thread-per-core is that a connection's steps never leave its core; the light runs
//! rarely queue three steps, but a hand-built case with deep queues does.
//! expect-fail: per_connection_never_takes_another_cores_step, pick_follows_the_rule_on_generated_queues
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        let (_, victim) = queues
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != core)
            .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
            .min()?;
        match self {
            Policy::WorkStealing => queues[victim].pop_front(),
            Policy::PerConnection if queues[victim].len() >= 3 => queues[victim].pop_front(),
            Policy::PerConnection => None,
        }
    }
}
