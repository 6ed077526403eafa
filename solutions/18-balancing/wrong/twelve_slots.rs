//! Wrong: the thief copies the fronts into a fixed array of 12 slots, one per core. On a
//! machine with more cores the index panics, and `catch_unwind` swallows the panic: the
//! core stays idle, silently, whatever waits. The tests used to stop at 12 cores; now they
//! also try 16 and 64.
//! expect-fail: a_64_core_machine_never_idles_while_a_step_waits, a_thief_does_not_spin, a_thief_looks_at_every_other_core, a_thief_looks_at_every_other_core_past_64, one_pass_over_the_queues_on_a_huge_machine, pick_follows_the_rule_on_generated_queues, skewed_runs_on_64_cores_exactly
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        if let Some(step) = queues[core].pop_front() {
            return Some(step);
        }
        match self {
            Policy::PerConnection => None,
            Policy::WorkStealing => {
                let fronts = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let mut fronts = [u64::MAX; 12];
                    for (other, queue) in queues.iter().enumerate() {
                        if other != core {
                            fronts[other] = queue.front().map_or(u64::MAX, |r| r.seq);
                        }
                    }
                    fronts
                }))
                .ok()?;
                let (seq, victim) = fronts.iter().enumerate().map(|(c, &s)| (s, c)).min()?;
                if seq == u64::MAX {
                    return None;
                }
                queues[victim].pop_front()
            }
        }
    }
}
