//! Chapter 15's benchmark: a fan-out of `JOBS` small jobs (see `small_job` in src/lib.rs),
//! seven ways: `tokio::spawn` with an `Arc` on a multi-thread runtime (from `block_on`, and
//! from inside a task on a worker) and on a current-thread runtime, `join_all`, `FuturesUnordered`, moro-local's `async_scope!`, and the scope of
//! lab 13. Every runtime is built before the timed region, which only calls `block_on`.
//! Run it with `scripts/bench fan-out`, which also writes the data the page charts.
//!
//! Besides divan's timings, `main` prints, for every variant, the allocations and the peak
//! heap of single fan-outs, counted on every thread (divan counts only its own threads,
//! and the multi-thread runtime allocates on its workers too).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};

use benches as job;
use divan::Bencher;
use tokio::runtime::{Builder, Runtime};

/// How many jobs one fan-out runs.
const JOBS: usize = 1000;

/// How many single fan-outs `main` measures per variant for allocations and peak memory.
const MEMORY_PASSES: usize = 5;

// ANCHOR: own_scope
/// (6) The scope built in lab 13: the body spawns one job per element; each job adds its
/// result to a `Cell` that the jobs borrow.
async fn own_scope_borrowed(data: &[u64]) -> u64 {
    let sum = Cell::new(0);
    local_scope::scope(async |scope| {
        for i in 0..data.len() {
            let sum = &sum;
            scope.spawn(async move |_| {
                let value = job::small_job(data, i).await;
                sum.set(sum.get() + value);
            });
        }
    })
    .await;
    sum.get()
}
// ANCHOR_END: own_scope

/// divan's allocation counter, plus a count and a peak of live bytes over every thread,
/// kept only while `TRACKING` is on (the timed runs leave it off).
struct Tracking(divan::AllocProfiler);

static TRACKING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

impl Tracking {
    fn grew(&self, bytes: usize) {
        if TRACKING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
            let bytes = bytes as isize;
            let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
            PEAK.fetch_max(live, Relaxed);
        }
    }

    fn shrank(&self, bytes: usize) {
        if TRACKING.load(Relaxed) {
            LIVE.fetch_sub(bytes as isize, Relaxed);
        }
    }
}

// SAFETY: every call is passed on unchanged to divan's profiler (itself a wrapper of the
// system allocator); the counters on the side do not touch the memory.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { self.0.alloc(layout) };
        if !ptr.is_null() {
            self.grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { self.0.alloc_zeroed(layout) };
        if !ptr.is_null() {
            self.grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.dealloc(ptr, layout) };
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let new = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // A realloc counts as one allocation of the new size, freeing the old one.
            self.shrank(layout.size());
            self.grew(new_size);
        }
        new
    }
}

#[global_allocator]
static ALLOC: Tracking = Tracking(divan::AllocProfiler::system());

/// The input every job reads one element of, hidden from the optimizer.
fn input() -> Vec<u64> {
    (0..JOBS as u64).map(black_box).collect()
}

fn multi_thread() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a multi-thread runtime")
}

fn current_thread() -> Runtime {
    Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
}

/// One whole fan-out, returning the sum of the jobs' results.
type FanOut = Box<dyn Fn() -> u64>;

/// One fan-out of each variant, on the runtime it runs on in the benchmark.
#[expect(
    clippy::disallowed_types,
    reason = "the Arc/spawn baseline this benchmark measures"
)]
fn variants() -> Vec<(&'static str, FanOut)> {
    let data: &'static [u64] = input().leak();
    let shared = std::sync::Arc::new(input());
    let (multi, current) = (multi_thread(), current_thread());
    let in_task = multi_thread();
    let shared_in_task = std::sync::Arc::clone(&shared);
    let spawn_current = current_thread();
    let shared_current = std::sync::Arc::clone(&shared);
    vec![
        (
            "spawn_multi_thread",
            Box::new(move || multi.block_on(job::spawn_arc(&shared))),
        ),
        (
            "spawn_in_task",
            Box::new(move || in_task.block_on(job::spawn_arc_in_task(&shared_in_task))),
        ),
        (
            "spawn_current_thread",
            Box::new(move || spawn_current.block_on(job::spawn_arc(&shared_current))),
        ),
        (
            "join_all",
            Box::new({
                let rt = current_thread();
                move || rt.block_on(job::join_all_borrowed(data))
            }),
        ),
        (
            "futures_unordered",
            Box::new({
                let rt = current_thread();
                move || rt.block_on(job::futures_unordered_borrowed(data))
            }),
        ),
        (
            "moro_scope",
            Box::new({
                let rt = current_thread();
                move || rt.block_on(job::moro_scope(data))
            }),
        ),
        (
            "own_scope",
            Box::new(move || current.block_on(own_scope_borrowed(data))),
        ),
    ]
}

/// Prints `fan-out-memory VARIANT ALLOCATIONS PEAK_BYTES` for single fan-outs, after one
/// warm-up fan-out (first uses allocate thread-locals and runtime buffers once).
fn measure_memory() {
    let expected: u64 = input()
        .iter()
        .map(|&x| x.wrapping_mul(2_654_435_761) >> 7)
        .sum();
    for (name, fan_out) in variants() {
        assert_eq!(fan_out(), expected, "{name} computes the wrong sum");
        for _ in 0..MEMORY_PASSES {
            ALLOCATIONS.store(0, Relaxed);
            LIVE.store(0, Relaxed);
            PEAK.store(0, Relaxed);
            TRACKING.store(true, Relaxed);
            let sum = fan_out();
            TRACKING.store(false, Relaxed);
            assert_eq!(sum, expected);
            let (count, peak) = (ALLOCATIONS.load(Relaxed), PEAK.load(Relaxed));
            println!("fan-out-memory {name} {count} {peak}");
        }
    }
}

fn main() {
    println!("fan-out-jobs {JOBS}");
    measure_memory();
    divan::main();
}

#[divan::bench]
#[expect(
    clippy::disallowed_types,
    reason = "the Arc/spawn baseline this benchmark measures"
)]
fn spawn_multi_thread(bencher: Bencher) {
    let rt = multi_thread();
    let data = std::sync::Arc::new(input());
    bencher.bench_local(|| rt.block_on(job::spawn_arc(&data)));
}

#[divan::bench]
#[expect(
    clippy::disallowed_types,
    reason = "the Arc/spawn baseline this benchmark measures"
)]
fn spawn_in_task(bencher: Bencher) {
    let rt = multi_thread();
    let data = std::sync::Arc::new(input());
    bencher.bench_local(|| rt.block_on(job::spawn_arc_in_task(&data)));
}

#[divan::bench]
#[expect(
    clippy::disallowed_types,
    reason = "the Arc/spawn baseline this benchmark measures"
)]
fn spawn_current_thread(bencher: Bencher) {
    let rt = current_thread();
    let data = std::sync::Arc::new(input());
    bencher.bench_local(|| rt.block_on(job::spawn_arc(&data)));
}

#[divan::bench]
fn join_all(bencher: Bencher) {
    let rt = current_thread();
    let data = input();
    bencher.bench_local(|| rt.block_on(job::join_all_borrowed(&data)));
}

#[divan::bench]
fn futures_unordered(bencher: Bencher) {
    let rt = current_thread();
    let data = input();
    bencher.bench_local(|| rt.block_on(job::futures_unordered_borrowed(&data)));
}

#[divan::bench]
fn moro_scope(bencher: Bencher) {
    let rt = current_thread();
    let data = input();
    bencher.bench_local(|| rt.block_on(job::moro_scope(&data)));
}

#[divan::bench]
fn own_scope(bencher: Bencher) {
    let rt = current_thread();
    let data = input();
    bencher.bench_local(|| rt.block_on(own_scope_borrowed(&data)));
}
