//! Wrong (an edit to the given simulator): `percentile` indexes the sorted latencies at
//! `per_mille * n / 1000`, forgetting that a rank counts from 1 and an index from 0. Every
//! percentile is one rank too high wherever `per_mille * n` is a multiple of 1000: of the
//! latencies 1 to 100, the p99 comes out 100, the maximum. No test pinned the simulator's
//! numbers before; now `percentile` is checked on lists built by hand and every run's p50
//! and p99 are pinned.
//! expect-fail: a_small_run_worked_by_hand, percentile_is_the_nearest_rank
//! replaces: percentile
pub fn percentile(&self, per_mille: u64) -> Micros {
    let n = self.latencies.len() as u64;
    if n == 0 {
        return 0;
    }
    let index = (per_mille * n / 1000) as usize;
    self.latencies[index.min(n as usize - 1)]
}
