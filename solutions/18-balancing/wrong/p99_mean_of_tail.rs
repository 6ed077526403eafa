//! Wrong (an edit to the given simulator): `percentile` returns the mean of the latencies
//! from the rank on, "a smoother tail". Of 99 requests of 10 µs and one of 1000 µs, the
//! p99 comes out 505 µs, a latency no request had. Caught by `percentile` on lists built by
//! hand and by the pinned runs.
//! expect-fail: a_small_run_worked_by_hand, percentile_is_the_nearest_rank, skewed_run_per_connection_exactly, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: percentile
pub fn percentile(&self, per_mille: u64) -> Micros {
    let n = self.latencies.len() as u64;
    if n == 0 {
        return 0;
    }
    let rank = (per_mille * n).div_ceil(1000).max(1);
    let tail = &self.latencies[(rank - 1) as usize..];
    tail.iter().sum::<Micros>() / tail.len() as Micros
}
