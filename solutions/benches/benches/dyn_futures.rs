//! Chapter 23's benchmark on the system allocator (glibc's malloc on Linux): the nested
//! stream in four versions (src/dyn_futures.rs). `benches/dyn_futures_jemalloc.rs` runs
//! the same code on jemalloc. Run both with `scripts/bench dyn-futures`, which also writes
//! the data the page charts.

// Counts every allocation, so divan can report allocations per iteration.
#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

benches::dyn_futures_benches!();
