//! Chapter 23's benchmark on the system allocator (glibc's malloc on Linux): the nested
//! stream in four versions (common/dyn_futures.rs). `benches/dyn_futures_jemalloc.rs` runs
//! the same code on jemalloc. Run both with `scripts/bench dyn-futures`, which also writes
//! the data the page charts.

#[path = "common/dyn_futures.rs"]
mod dyn_futures;

// Counts every allocation, so divan can report allocations per iteration.
#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    dyn_futures::check();
    divan::main();
}

#[divan::bench]
fn no_trait() -> u64 {
    benches::drive(dyn_futures::no_trait())
}

#[divan::bench]
fn async_trait() -> u64 {
    benches::drive(dyn_futures::async_trait())
}

#[divan::bench]
fn boxed() -> u64 {
    benches::drive(dyn_futures::boxed())
}

#[divan::bench]
fn recycled() -> u64 {
    benches::drive(dyn_futures::recycled())
}
