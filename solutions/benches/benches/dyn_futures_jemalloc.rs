//! Chapter 23's benchmark on jemalloc: the same four versions of the nested stream as
//! `benches/dyn_futures.rs`, with jemalloc as the global allocator (divan's profiler
//! around it still counts the allocations). jemalloc does not build with MSVC, so there
//! this benchmark only says so.

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOC: divan::AllocProfiler<tikv_jemallocator::Jemalloc> =
    divan::AllocProfiler::new(tikv_jemallocator::Jemalloc);

#[cfg(not(target_env = "msvc"))]
fn main() {
    divan::main();
}

#[cfg(not(target_env = "msvc"))]
benches::dyn_futures_benches!();

#[cfg(target_env = "msvc")]
fn main() {
    eprintln!("jemalloc does not build with MSVC: nothing to measure");
}
