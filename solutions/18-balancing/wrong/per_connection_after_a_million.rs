//! Wrong: per connection stays idle only while the run is young; once the oldest waiting
//! step has a seq past 2^20 (a million steps), thread-per-core "helps out" and steals
//! like work-stealing. Every old test used small seqs. Per connection is now asked with
//! seqs past 2^20 and 2^32, and on generated queues whose seqs reach the end of u64.
//! expect-fail: per_connection_never_takes_another_cores_step, pick_follows_the_rule_on_generated_queues, seqs_past_u16_and_u32_still_order_the_steps
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        let (seq, victim) = (0..queues.len())
            .filter(|&other| other != core)
            .filter_map(|other| Some((queues[other].front()?.seq, other)))
            .min()?;
        match self {
            Policy::PerConnection if seq < 1 << 20 => None,
            _ => queues[victim].pop_front(),
        }
    }
}
