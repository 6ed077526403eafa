//! Chapter 24's benchmark, run by `scripts/bench timers`: many timers of 20 ms on one
//! runtime thread, in real time, and how late each one's handler runs. The handler records the lateness; the variants differ only in how that record
//! reaches the shared list, which is the shape of Adrien Zinger's 2022 experiment
//! ("Asynchronous futures vs Synchronous locks in Rust"), rebuilt here, not his code:
//!
//! - `std_mutex`: each timer's task locks a std `Mutex` briefly in a synchronous callback;
//! - `tokio_mutex_channel`: each timer sends down a tokio mpsc channel; one consumer task
//!   records under a `tokio::sync::Mutex` (`lock().await`);
//! - `two_threads`: each timer sends down an unbounded std channel to a second thread,
//!   which records;
//! - `refcell`: each timer's local task borrows a `RefCell` briefly (no lock);
//! - `join_all`: no task per timer: one future joins them all and borrows a `RefCell`
//!   (lab 24's solution);
//! - `join_all_unconstrained`: the same, outside tokio's cooperative budget
//!   (`tokio::task::coop::unconstrained`). All 10,000 timers are polled by one task, and
//!   tokio lets a task's timers and channels answer `Ready` only 128 times per poll of
//!   that task (its coop budget); this variant shows what that budget costs here.
//!
//! Every variant builds a fresh current-thread runtime (`LocalRuntime`). A timer's deadline
//! is taken when it is created (`now + 20 ms`); its lateness is when its record is made
//! minus that deadline.
//!
//! `timers VARIANT [TIMERS]` runs TIMERS (default 10,000) timers with one variant and
//! prints `timers VARIANT COUNT MEAN P50 P99 MAX` (lateness in µs). With no arguments (as
//! `cargo test -p benches` runs it) it checks every variant on 300 timers.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::future::join_all;
use tokio::runtime::{Builder, LocalOptions, LocalRuntime};
use tokio::sync::Notify;
use tokio::time::{Instant, sleep_until};

/// How long each timer waits.
pub const DELAY: Duration = Duration::from_millis(20);

/// The variants, in the order the chart shows them.
pub const VARIANTS: [&str; 5] = [
    "std_mutex",
    "tokio_mutex_channel",
    "two_threads",
    "refcell",
    "join_all",
];

/// Runs `timers` timers with the named variant; returns each one's lateness, in the order
/// they were recorded.
pub fn run(variant: &str, timers: usize) -> Vec<Duration> {
    let runtime = Builder::new_current_thread()
        .enable_time()
        .build_local(LocalOptions::default())
        .expect("a current-thread runtime");
    match variant {
        "std_mutex" => std_mutex(&runtime, timers),
        "tokio_mutex_channel" => tokio_mutex_channel(&runtime, timers),
        "two_threads" => two_threads(&runtime, timers),
        "refcell" => refcell(&runtime, timers),
        "join_all" => runtime.block_on(joined(timers)),
        "join_all_unconstrained" => {
            runtime.block_on(tokio::task::coop::unconstrained(joined(timers)))
        }
        other => panic!("unknown variant {other} (known: {VARIANTS:?})"),
    }
}

// ANCHOR: std_mutex
#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the std Mutex (with Arc and tokio::spawn) is what this variant measures"
)]
fn std_mutex(runtime: &LocalRuntime, timers: usize) -> Vec<Duration> {
    use std::sync::{Arc, Mutex};
    runtime.block_on(async {
        let late = Arc::new(Mutex::new(Vec::with_capacity(timers)));
        let done = Arc::new(Notify::new());
        for _ in 0..timers {
            let deadline = Instant::now() + DELAY;
            let (late, done) = (Arc::clone(&late), Arc::clone(&done));
            tokio::spawn(async move {
                sleep_until(deadline).await;
                // The synchronous callback: lock, push, unlock. No .await while locked.
                let mut late = late.lock().unwrap();
                late.push(deadline.elapsed());
                if late.len() == timers {
                    done.notify_one();
                }
            });
        }
        done.notified().await;
        std::mem::take(&mut *late.lock().unwrap())
    })
}
// ANCHOR_END: std_mutex

// ANCHOR: tokio_mutex_channel
#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the tokio Mutex (with Arc and tokio::spawn) is what this variant measures"
)]
fn tokio_mutex_channel(runtime: &LocalRuntime, timers: usize) -> Vec<Duration> {
    use std::sync::Arc;
    use tokio::sync::{Mutex, mpsc};
    runtime.block_on(async {
        let late = Arc::new(Mutex::new(Vec::with_capacity(timers)));
        let (sender, mut receiver) = mpsc::channel::<Instant>(1024);
        let consumer = tokio::spawn({
            let late = Arc::clone(&late);
            async move {
                while let Some(deadline) = receiver.recv().await {
                    late.lock().await.push(deadline.elapsed());
                }
            }
        });
        for _ in 0..timers {
            let deadline = Instant::now() + DELAY;
            let sender = sender.clone();
            tokio::spawn(async move {
                sleep_until(deadline).await;
                let _ = sender.send(deadline).await;
            });
        }
        drop(sender); // the consumer ends once every timer has sent
        consumer.await.expect("the consumer");
        std::mem::take(&mut *late.lock().await)
    })
}
// ANCHOR_END: tokio_mutex_channel

// ANCHOR: two_threads
#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "tasks spawned with tokio::spawn, as in the experiment this variant rebuilds"
)]
fn two_threads(runtime: &LocalRuntime, timers: usize) -> Vec<Duration> {
    use std::sync::Arc;
    let (sender, receiver) = std::sync::mpsc::channel::<Instant>(); // unbounded: "huge"
    let done = Arc::new(Notify::new());
    let recorder = std::thread::spawn({
        let done = Arc::clone(&done);
        move || {
            let mut late = Vec::with_capacity(timers);
            while late.len() < timers {
                let deadline = receiver.recv().expect("a timer's record");
                late.push(deadline.elapsed());
            }
            done.notify_one(); // one wake-up for the runtime's thread, at the very end
            late
        }
    });
    runtime.block_on(async {
        for _ in 0..timers {
            let deadline = Instant::now() + DELAY;
            let sender = sender.clone();
            tokio::spawn(async move {
                sleep_until(deadline).await;
                let _ = sender.send(deadline);
            });
        }
        done.notified().await;
    });
    recorder.join().expect("the recording thread")
}
// ANCHOR_END: two_threads

// ANCHOR: refcell
fn refcell(runtime: &LocalRuntime, timers: usize) -> Vec<Duration> {
    runtime.block_on(async {
        let late = Rc::new(RefCell::new(Vec::with_capacity(timers)));
        let done = Rc::new(Notify::new());
        for _ in 0..timers {
            let deadline = Instant::now() + DELAY;
            let (late, done) = (Rc::clone(&late), Rc::clone(&done));
            tokio::task::spawn_local(async move {
                sleep_until(deadline).await;
                let mut late = late.borrow_mut();
                late.push(deadline.elapsed());
                if late.len() == timers {
                    done.notify_one();
                }
            });
        }
        done.notified().await;
        late.take()
    })
}
// ANCHOR_END: refcell

// ANCHOR: join_all
async fn joined(timers: usize) -> Vec<Duration> {
    let late = RefCell::new(Vec::with_capacity(timers));
    let deadlines: Vec<Instant> = (0..timers).map(|_| Instant::now() + DELAY).collect();
    let late_ref = &late;
    join_all(deadlines.iter().map(|&deadline| async move {
        sleep_until(deadline).await;
        late_ref.borrow_mut().push(deadline.elapsed());
    }))
    .await;
    late.into_inner()
}
// ANCHOR_END: join_all

/// Mean, median, 99th percentile and maximum, in microseconds.
pub fn summary(late: &[Duration]) -> [u64; 4] {
    let mut us: Vec<u64> = late.iter().map(|d| d.as_micros() as u64).collect();
    us.sort_unstable();
    let at = |q: f64| us[((us.len() - 1) as f64 * q).round() as usize];
    let mean = us.iter().sum::<u64>() / us.len() as u64;
    [mean, at(0.5), at(0.99), us[us.len() - 1]]
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let Some(variant) = args.next() else {
        for variant in VARIANTS {
            let late = run(variant, 300);
            assert_eq!(late.len(), 300, "{variant} recorded every timer");
            let [mean, p50, p99, max] = summary(&late);
            assert!(mean <= max && p50 <= p99 && p99 <= max, "{variant}");
        }
        println!("timers: every variant records every timer (300 each)");
        return;
    };
    let count: usize = args
        .next()
        .map_or(10_000, |n| n.parse().expect("TIMERS is a number"));
    let late = run(&variant, count);
    let [mean, p50, p99, max] = summary(&late);
    println!("timers {variant} {} {mean} {p50} {p99} {max}", late.len());
}
