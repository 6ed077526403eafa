//! Chapter 23's benchmark on jemalloc: the same four versions of the nested stream as
//! `benches/dyn_futures.rs` (common/dyn_futures.rs), with jemalloc as the global allocator
//! (divan's profiler around it still counts the allocations). jemalloc does not build with
//! MSVC, so there this benchmark only says so.

#[cfg(not(target_env = "msvc"))]
#[path = "common/dyn_futures.rs"]
mod dyn_futures;

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOC: divan::AllocProfiler<tikv_jemallocator::Jemalloc> =
    divan::AllocProfiler::new(tikv_jemallocator::Jemalloc);

#[cfg(not(target_env = "msvc"))]
fn main() {
    dyn_futures::check();
    divan::main();
}

#[cfg(target_env = "msvc")]
fn main() {
    eprintln!("jemalloc does not build with MSVC: nothing to measure");
}

#[cfg(not(target_env = "msvc"))]
#[divan::bench]
fn no_trait() -> u64 {
    benches::drive(dyn_futures::no_trait())
}

#[cfg(not(target_env = "msvc"))]
#[divan::bench]
fn async_trait() -> u64 {
    benches::drive(dyn_futures::async_trait())
}

#[cfg(not(target_env = "msvc"))]
#[divan::bench]
fn boxed() -> u64 {
    benches::drive(dyn_futures::boxed())
}

#[cfg(not(target_env = "msvc"))]
#[divan::bench]
fn recycled() -> u64 {
    benches::drive(dyn_futures::recycled())
}
