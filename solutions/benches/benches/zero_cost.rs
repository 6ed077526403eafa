//! Chapter 5's benchmark: the same job as a hand-written state machine, as combinators and
//! as async/await (see src/lib.rs), each driven to completion with a no-op waker.
//! Run it with `scripts/bench zero-cost`, which also writes the data the page charts.

use std::hint::black_box;

use benches::{self as job, drive};

// Counts every allocation, so divan can report allocations per iteration.
#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

/// How many times each count-down answers `Pending`.
const STEPS: u32 = 8;

/// The job's inputs, hidden from the optimizer so nothing is computed at compile time.
fn inputs() -> (u64, u64, u32) {
    (black_box(5), black_box(9), black_box(STEPS))
}

fn main() {
    // scripts/bench records the sizes of the three futures next to the timings.
    let sizes = [
        ("hand_written", size_of_val(&job::hand_written(1, 2, STEPS))),
        ("combinators", size_of_val(&job::combinators(1, 2, STEPS))),
        ("async_await", size_of_val(&job::async_await(1, 2, STEPS))),
    ];
    for (name, bytes) in sizes {
        println!("future-size {name} {bytes}");
    }
    divan::main();
}

#[divan::bench]
fn hand_written() -> u64 {
    let (x, y, steps) = inputs();
    drive(job::hand_written(x, y, steps))
}

#[divan::bench]
fn combinators() -> u64 {
    let (x, y, steps) = inputs();
    drive(job::combinators(x, y, steps))
}

#[divan::bench]
fn async_await() -> u64 {
    let (x, y, steps) = inputs();
    drive(job::async_await(x, y, steps))
}
