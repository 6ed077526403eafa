//! Wrong: the thief only considers "busy" queues, those at least half as long as the
//! longest other queue, and takes the oldest front among them. A short queue's old step is
//! left to wait while younger steps are stolen from long ones. Caught by a hand-built case:
//! a lone oldest step next to a queue of five.
//! expect-fail: a_lone_old_step_beats_a_backlog, long_queues_are_served_from_the_front, pick_follows_the_rule_on_generated_queues
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let others = (0..queues.len()).filter(|&other| other != core);
                let longest = others.clone().map(|other| queues[other].len()).max()?;
                let (_, victim) = others
                    .filter(|&other| 2 * queues[other].len() >= longest)
                    .filter_map(|other| Some((queues[other].front()?.seq, other)))
                    .min()?;
                queues[victim].pop_front()
            }
        }
    }
}
