//! What one request costs, the same on every runtime: the hello-world reply, and the
//! seed benchmark's skewed handler (0 to 10 awaited steps of about 10 µs each), with the
//! step done either as CPU work (a calibrated spin) or as the seed did it
//! (`std::thread::sleep(10 µs)`, which blocks the thread and leaves the core idle).

use std::cell::Cell;
use std::convert::Infallible;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};

/// The reply to every request.
pub const HELLO: &[u8] = b"Hello, World!";

/// How long one step of the skewed handler should take.
pub const STEP: Duration = Duration::from_micros(10);

/// Most steps a request takes; each request draws 0..=MAX_STEPS.
pub const MAX_STEPS: u64 = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Reply at once.
    Plain,
    /// 0-10 steps, each about 10 µs of CPU work, then an await that really yields.
    Spin { iterations: u64 },
    /// 0-10 steps, each `std::thread::sleep(10 µs)`, then the same await.
    Sleep,
}

impl Work {
    pub fn parse(name: &str, spin_iterations: u64) -> Option<Work> {
        match name {
            "plain" => Some(Work::Plain),
            "spin" => Some(Work::Spin {
                iterations: spin_iterations,
            }),
            "sleep" => Some(Work::Sleep),
            _ => None,
        }
    }
}

// ANCHOR: handler
/// The service every variant runs: the same code on every runtime.
pub async fn handle(
    work: Work,
    _request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    do_work(work).await;
    Ok(Response::new(Full::new(Bytes::from_static(HELLO))))
}
// ANCHOR_END: handler

/// The request's work, then one more response counted: what every variant does before
/// it answers `HELLO` (lab 19's server answers through its own `Handler`).
pub async fn do_work(work: Work) {
    let steps = match work {
        Work::Plain => 0,
        _ => next_random() % (MAX_STEPS + 1),
    };
    for _ in 0..steps {
        match work {
            Work::Spin { iterations } => spin(iterations),
            Work::Sleep => std::thread::sleep(STEP),
            Work::Plain => unreachable!(),
        }
        // An await point that really suspends: a work-stealing runtime may move the
        // request to another worker here; a thread-per-core one serves others meanwhile.
        YieldOnce(false).await;
    }
    count_served();
}

/// Returns `Pending` once (after asking to be polled again), then `Ready`: a yield that
/// works on every runtime.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// CPU work the optimizer cannot remove: `iterations` rounds of a multiply-add.
pub fn spin(iterations: u64) {
    let mut x = 0u64;
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    black_box(x);
}

/// How many `spin` iterations take `STEP` on this machine, now: the median of many short
/// timings (a preempted one lands in the tail, not in the median).
pub fn calibrate_spin() -> u64 {
    let trial = 10_000;
    let mut per_iteration: Vec<f64> = (0..201)
        .map(|_| {
            let start = Instant::now();
            spin(trial);
            start.elapsed().as_secs_f64() / trial as f64
        })
        .collect();
    per_iteration.sort_by(f64::total_cmp);
    let median = per_iteration[per_iteration.len() / 2];
    (STEP.as_secs_f64() / median).round().max(1.0) as u64
}

/// The median wall time of `f`, in microseconds, over `n` calls.
pub fn median_micros(n: usize, f: impl Fn()) -> f64 {
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[n / 2]
}

thread_local! {
    /// Each thread's own random sequence (xorshift), seeded from its counter slot.
    static RANDOM: Cell<u64> = Cell::new(0x9E37_79B9_7F4A_7C15 ^ (slot() as u64 + 1));
}

fn next_random() -> u64 {
    RANDOM.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        x
    })
}

/// Responses served, one cache-line-sized counter per thread so that counting costs no
/// cross-core traffic; `served()` adds them up when the server stops.
#[repr(align(128))]
struct Padded(AtomicU64);

const SLOTS: usize = 64;
static SERVED: [Padded; SLOTS] = [const { Padded(AtomicU64::new(0)) }; SLOTS];
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static SLOT: usize = NEXT_SLOT.fetch_add(1, Relaxed) % SLOTS;
}

fn slot() -> usize {
    SLOT.with(|slot| *slot)
}

fn count_served() {
    SERVED[slot()].0.fetch_add(1, Relaxed);
}

pub fn served() -> u64 {
    SERVED.iter().map(|slot| slot.0.load(Relaxed)).sum()
}
