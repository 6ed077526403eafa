//! The book's benchmarked code, run by `scripts/bench`:
//!
//! - Chapter 5's zero-cost benchmark (`benches/zero_cost.rs`): one small job written three
//!   ways. The job: count down from `x`, triple the result, count down again from that plus
//!   one; meanwhile count down from `y`; when both are done, add the two results. Each
//!   count-down answers `Pending` `steps` times before it is ready, so the job is polled
//!   many times and cannot be folded into a constant.
//! - Chapter 15's fan-out benchmark (`benches/fan_out.rs`): many small jobs over borrowed
//!   data, run with `tokio::spawn` and an `Arc` (from `block_on` and from inside a task),
//!   with `join_all`, with `FuturesUnordered`
//!   and with moro-local's scope (the functions after `drive` below).
//! - Chapter 23's dyn-futures benchmark lives with its bench targets
//!   (`benches/common/dyn_futures.rs`, shared by `benches/dyn_futures.rs` and
//!   `benches/dyn_futures_jemalloc.rs`): the book includes this file whole into doc tests,
//!   so it holds no module of its own.

use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

use futures::future::{self, FutureExt};

// ANCHOR: leaf
/// The leaf all three versions share: `Pending` `steps` times, then `Ready(value)`.
pub struct CountDown {
    steps: u32,
    value: u64,
}

#[inline]
pub fn count_down(steps: u32, value: u64) -> CountDown {
    CountDown { steps, value }
}

impl Future for CountDown {
    type Output = u64;

    // The leaf stands for I/O, which the optimizer cannot see into. Inlined, it lets LLVM
    // fold the hand-written version into a few register operations, and the benchmark
    // would measure the optimizer instead of the three styles (chapter 5 tells the story).
    #[inline(never)]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        if self.steps == 0 {
            return Poll::Ready(self.value);
        }
        self.steps -= 1;
        cx.waker().wake_by_ref(); // "poll me again"
        Poll::Pending
    }
}
// ANCHOR_END: leaf

// ANCHOR: hand_written
/// (1) The whole job as one hand-written state machine.
pub struct HandWritten {
    steps: u32,
    left: Left,
    right: Right,
}

enum Left {
    First(CountDown),
    Second(CountDown),
    Done(u64),
}

enum Right {
    Waiting(CountDown),
    Done(u64),
}

#[inline]
pub fn hand_written(x: u64, y: u64, steps: u32) -> HandWritten {
    HandWritten {
        steps,
        left: Left::First(count_down(steps, x)),
        right: Right::Waiting(count_down(steps, y)),
    }
}

impl Future for HandWritten {
    type Output = u64;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        let this = &mut *self; // every field is Unpin, so no pin projection is needed
        if let Left::First(first) = &mut this.left
            && let Poll::Ready(v) = Pin::new(first).poll(cx)
        {
            this.left = Left::Second(count_down(this.steps, v * 3 + 1));
        }
        if let Left::Second(second) = &mut this.left
            && let Poll::Ready(v) = Pin::new(second).poll(cx)
        {
            this.left = Left::Done(v);
        }
        if let Right::Waiting(right) = &mut this.right
            && let Poll::Ready(v) = Pin::new(right).poll(cx)
        {
            this.right = Right::Done(v);
        }
        match (&this.left, &this.right) {
            (Left::Done(a), Right::Done(b)) => Poll::Ready(a + b),
            _ => Poll::Pending,
        }
    }
}
// ANCHOR_END: hand_written

// ANCHOR: combinators
/// (2) The same job from `futures` combinators.
pub fn combinators(x: u64, y: u64, steps: u32) -> impl Future<Output = u64> {
    let left = count_down(steps, x)
        .map(|v| v * 3)
        .then(move |v| count_down(steps, v + 1));
    let right = count_down(steps, y);
    future::join(left, right).map(|(a, b)| a + b)
}
// ANCHOR_END: combinators

// ANCHOR: async_await
/// (3) The same job with `async` and `.await`.
pub async fn async_await(x: u64, y: u64, steps: u32) -> u64 {
    let (a, b) = futures::join!(left_half(x, steps), count_down(steps, y));
    a + b
}

// ANCHOR_END: async_await

// ANCHOR: left_half
/// The left half of (3): two count-downs in a row.
pub async fn left_half(x: u64, steps: u32) -> u64 {
    let v = count_down(steps, x).await * 3;
    count_down(steps, v + 1).await
}
// ANCHOR_END: left_half

// ANCHOR: left_half_states
/// Roughly the state machine the compiler writes for `left_half`: one variant for
/// "not started", one per `.await` where the body can stop, one for "finished".
pub enum LeftHalfStates {
    Unresumed { x: u64, steps: u32 },
    Suspend0 { steps: u32, awaitee: CountDown },
    Suspend1 { awaitee: CountDown },
    Returned,
}

impl Future for LeftHalfStates {
    type Output = u64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        let this = &mut *self;
        loop {
            match this {
                // The first poll starts the body: run it up to the first `.await`.
                LeftHalfStates::Unresumed { x, steps } => {
                    let awaitee = count_down(*steps, *x);
                    *this = LeftHalfStates::Suspend0 {
                        steps: *steps,
                        awaitee,
                    };
                }
                LeftHalfStates::Suspend0 { steps, awaitee } => {
                    let steps = *steps;
                    match Pin::new(awaitee).poll(cx) {
                        Poll::Pending => return Poll::Pending, // stop here, resume here
                        Poll::Ready(v) => {
                            let awaitee = count_down(steps, v * 3 + 1);
                            *this = LeftHalfStates::Suspend1 { awaitee };
                        }
                    }
                }
                LeftHalfStates::Suspend1 { awaitee } => match Pin::new(awaitee).poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(v) => {
                        *this = LeftHalfStates::Returned;
                        return Poll::Ready(v);
                    }
                },
                LeftHalfStates::Returned => panic!("`async fn` resumed after completion"),
            }
        }
    }
}
// ANCHOR_END: left_half_states

// ANCHOR: drive
/// Polls `future` until it is ready, with a waker that does nothing: no executor, no
/// task, no allocation, so the benchmark measures the futures and nothing else.
pub fn drive<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}
// ANCHOR_END: drive

// ANCHOR: small_job
/// One job of the fan-out: wait once (the runtime gets a say), then a little arithmetic
/// on the job's element of the input.
pub async fn small_job(data: &[u64], i: usize) -> u64 {
    tokio::task::yield_now().await;
    data[i].wrapping_mul(2_654_435_761) >> 7
}
// ANCHOR_END: small_job

// ANCHOR: spawn_arc
/// (1, 2) One task per job. `tokio::spawn` wants `'static`, so every job gets its own
/// handle on the input: an `Arc` clone, not a borrow.
#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the Arc/spawn baseline this benchmark measures"
)]
pub async fn spawn_arc(data: &std::sync::Arc<Vec<u64>>) -> u64 {
    let mut handles = Vec::with_capacity(data.len());
    for i in 0..data.len() {
        let data = std::sync::Arc::clone(data);
        handles.push(tokio::spawn(async move { small_job(&data, i).await }));
    }
    let mut sum = 0;
    for handle in handles {
        sum += handle.await.expect("a job panicked");
    }
    sum
}
// ANCHOR_END: spawn_arc

// ANCHOR: spawn_in_task
/// (2) The same fan-out, started from inside a task. `block_on`'s thread is not one of the
/// runtime's workers, so every `tokio::spawn` it makes goes through the runtime's shared
/// queue for tasks from outside; spawned from a task, they go to that worker's own queue,
/// and the other worker steals from it.
#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the Arc/spawn baseline this benchmark measures"
)]
pub async fn spawn_arc_in_task(data: &std::sync::Arc<Vec<u64>>) -> u64 {
    let data = std::sync::Arc::clone(data);
    tokio::spawn(async move { spawn_arc(&data).await })
        .await
        .expect("the fan-out panicked")
}
// ANCHOR_END: spawn_in_task

// ANCHOR: join_all
/// (3) Every job borrows the input; `join_all` polls them all inside this one future.
pub async fn join_all_borrowed(data: &[u64]) -> u64 {
    let jobs = (0..data.len()).map(|i| small_job(data, i));
    futures::future::join_all(jobs).await.iter().sum()
}
// ANCHOR_END: join_all

// ANCHOR: futures_unordered
/// (4) The same with a `FuturesUnordered`, whose results come in the order they finish.
pub async fn futures_unordered_borrowed(data: &[u64]) -> u64 {
    use futures::stream::{FuturesUnordered, StreamExt};
    let mut jobs: FuturesUnordered<_> = (0..data.len()).map(|i| small_job(data, i)).collect();
    let mut sum = 0;
    while let Some(value) = jobs.next().await {
        sum += value;
    }
    sum
}
// ANCHOR_END: futures_unordered

// ANCHOR: moro_scope
/// (5) moro-local: the body spawns one job per element, then awaits their handles.
pub async fn moro_scope(data: &[u64]) -> u64 {
    moro_local::async_scope!(|scope| {
        let mut handles = Vec::with_capacity(data.len());
        for i in 0..data.len() {
            handles.push(scope.spawn(small_job(data, i)));
        }
        let mut sum = 0;
        for handle in handles {
            sum += handle.await;
        }
        sum
    })
    .await
}
// ANCHOR_END: moro_scope

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::task::{RawWaker, RawWakerVTable};

    use super::*;

    #[test]
    fn the_three_versions_agree() {
        for (x, y, steps) in [(0, 0, 0), (7, 11, 1), (5, 9, 8), (1000, 3, 4)] {
            let expected = x * 3 + 1 + y;
            assert_eq!(drive(hand_written(x, y, steps)), expected);
            assert_eq!(drive(combinators(x, y, steps)), expected);
            assert_eq!(drive(async_await(x, y, steps)), expected);
        }
    }

    /// How many polls `future` needs, and how many times a leaf asks to be woken (each
    /// count-down asks once per `Pending`): the three versions must do the same work.
    fn work<F: Future>(future: F) -> (u32, u32) {
        // A waker that counts its wakes in a `Cell` on this stack frame (Wake needs an Arc).
        static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake, drop);
        fn clone(count: *const ()) -> RawWaker {
            RawWaker::new(count, &VTABLE)
        }
        fn wake(count: *const ()) {
            // SAFETY: `count` is the `Cell` below, which outlives every waker made from it.
            let count = unsafe { &*count.cast::<Cell<u32>>() };
            count.set(count.get() + 1);
        }
        fn drop(_: *const ()) {}

        let wakes = Cell::new(0);
        let raw = RawWaker::new((&raw const wakes).cast(), &VTABLE);
        // SAFETY: the vtable's functions follow RawWaker's contract; the waker and its
        // clones (none are kept) are gone before `wakes` is.
        let waker = unsafe { Waker::from_raw(raw) };
        let mut cx = Context::from_waker(&waker);
        let mut future = pin!(future);
        let mut polls = 1;
        while future.as_mut().poll(&mut cx).is_pending() {
            polls += 1;
        }
        (polls, wakes.get())
    }

    #[test]
    fn the_three_versions_do_the_same_work() {
        for steps in [0, 1, 8] {
            // Two count-downs in a row on the left, one on the right.
            let expected = (2 * steps + 1, 3 * steps);
            assert_eq!(work(hand_written(1, 2, steps)), expected);
            assert_eq!(work(combinators(1, 2, steps)), expected);
            assert_eq!(work(async_await(1, 2, steps)), expected);
        }
    }

    #[test]
    #[expect(
        clippy::disallowed_types,
        reason = "the Arc/spawn baseline this benchmark measures"
    )]
    fn the_fan_out_variants_agree() {
        let data: Vec<u64> = (0..100).map(|x| x * 7 + 3).collect();
        let expected: u64 = data
            .iter()
            .map(|&x| x.wrapping_mul(2_654_435_761) >> 7)
            .sum();
        let shared = std::sync::Arc::new(data.clone());
        let multi = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let current = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        assert_eq!(multi.block_on(spawn_arc(&shared)), expected);
        assert_eq!(multi.block_on(spawn_arc_in_task(&shared)), expected);
        assert_eq!(current.block_on(spawn_arc(&shared)), expected);
        assert_eq!(current.block_on(join_all_borrowed(&data)), expected);
        assert_eq!(
            current.block_on(futures_unordered_borrowed(&data)),
            expected
        );
        assert_eq!(current.block_on(moro_scope(&data)), expected);
    }

    #[test]
    fn the_states_by_hand_behave_like_the_async_fn() {
        for (x, steps) in [(0, 0), (4, 1), (5, 8)] {
            let by_hand = LeftHalfStates::Unresumed { x, steps };
            let expected = (2 * steps + 1, 2 * steps);
            assert_eq!(work(left_half(x, steps)), expected);
            assert_eq!(work(LeftHalfStates::Unresumed { x, steps }), expected);
            assert_eq!(drive(by_hand), drive(left_half(x, steps)));
        }
    }
}
