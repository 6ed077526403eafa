//! Wrong: the thief walks round the ring of cores until it finds a step, and never
//! gives up: when every queue is empty it spins for ever (and it takes the first step it
//! meets, not the oldest). The tests' watchdog turns the hang into a failure.
//! expect-fail: a_thief_looks_at_every_other_core, an_idle_core_steals_the_oldest_waiting_step, an_idle_core_takes_over_a_waiting_task, more_cores_than_connections, nothing_to_run_means_none, same_seed_same_result, skewed_work_gives_stealing_a_lower_p99, stealing_never_leaves_a_core_idle_while_a_step_waits, the_oldest_step_wins_not_the_longest_queue, uniform_work_gives_equal_throughput
//! replaces: solution
impl Policy {
    pub fn pick(self, core: usize, queues: &mut [VecDeque<Ready>]) -> Option<Ready> {
        match self {
            Policy::PerConnection => queues[core].pop_front(),
            Policy::WorkStealing => {
                let mut next = core;
                loop {
                    if let Some(step) = queues[next].pop_front() {
                        return Some(step);
                    }
                    next = (next + 1) % queues.len();
                }
            }
        }
    }
}
