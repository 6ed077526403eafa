//! Chapter 23's benchmark on jemalloc: the same four versions of the nested stream as
//! `benches/dyn_futures.rs` (common/dyn_futures.rs), with jemalloc as the global allocator
//! (divan's profiler around it still counts the allocations). Linux only, like the seed's
//! jemalloc figures: elsewhere this benchmark only says so.

#[cfg(target_os = "linux")]
#[path = "common/dyn_futures.rs"]
mod dyn_futures;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: divan::AllocProfiler<tikv_jemallocator::Jemalloc> =
    divan::AllocProfiler::new(tikv_jemallocator::Jemalloc);

#[cfg(target_os = "linux")]
fn main() {
    dyn_futures::check();
    divan::main();
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("this benchmark runs on Linux only: nothing to measure");
}

#[cfg(target_os = "linux")]
#[divan::bench]
fn no_trait() -> u64 {
    benches::drive(dyn_futures::no_trait())
}

#[cfg(target_os = "linux")]
#[divan::bench]
fn async_trait() -> u64 {
    benches::drive(dyn_futures::async_trait())
}

#[cfg(target_os = "linux")]
#[divan::bench]
fn boxed() -> u64 {
    benches::drive(dyn_futures::boxed())
}

#[cfg(target_os = "linux")]
#[divan::bench]
fn recycled() -> u64 {
    benches::drive(dyn_futures::recycled())
}
