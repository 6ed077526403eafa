//! Wrong (an edit to the given simulator): the run stops at `now >= duration`, so what
//! happens exactly at `duration` is dropped, and a request that ends then is not counted.
//! Long runs lose a request or two and nobody notices; in the small run worked by hand the
//! last request ends at 40 µs, the run's duration, and must count.
//! expect-fail: a_small_run_worked_by_hand, skewed_run_per_connection_exactly, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: over
fn over(now: Micros, load: &Load) -> bool {
    now >= load.duration
}
