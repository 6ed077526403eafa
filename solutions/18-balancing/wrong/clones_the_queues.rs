//! Wrong: `RunQueue` given a `Clone` of the answer's own, and every call searches a copy of
//! every queue ("so the search cannot disturb the real ones"). A copy costs a look on each
//! queue and the search's looks land on the copies, where no one counts them; each call
//! also copies every waiting step. The tests pass. The runner refuses it: the lab's public
//! API is fixed (`fixed-api = true`), and a trait impl on a given type is new API.
//! expect-lesson: new API
//! replaces: solution
impl Clone for RunQueue {
    fn clone(&self) -> Self {
        self.iter().copied().collect()
    }
}

impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        if self == Policy::PerConnection {
            return None;
        }
        let copies: Vec<RunQueue> = queues.iter().map(RunQueue::clone).collect();
        let (_, victim) = copies
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != core)
            .filter_map(|(other, queue)| Some((queue.front()?.seq, other)))
            .min()?;
        queues[victim].pop_front()
    }
}
