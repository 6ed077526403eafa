//! Right, too: one `for` loop that keeps the best `(seq, core)` seen so far, asking each
//! queue whether it is empty before reading its front. That is two looks per queue, well
//! within the tests' budget of four; the search still reads each queue once per call.
//! expect-pass
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if !queues[core].is_empty() {
            return queues[core].pop_front();
        }
        if self == Policy::PerConnection {
            return None;
        }
        let mut best: Option<(u64, usize)> = None;
        for (other, queue) in queues.iter().enumerate() {
            if other == core || queue.is_empty() {
                continue;
            }
            let seq = queue.front().expect("not empty").seq;
            if best.is_none_or(|(oldest, _)| seq < oldest) {
                best = Some((seq, other));
            }
        }
        let (_, victim) = best?;
        queues[victim].pop_front()
    }
}
