//! Lab 23: a box for a trait object's futures that reuses its memory. `Recycler::recycle`
//! boxes a future; a method of a trait object can return one (see the `Countdown` trait
//! in the tests) instead of a `Pin<Box<dyn Future + '_>>`. The starter works, but it
//! allocates a new box for every call. Make calls that do not overlap share one block
//! of memory. Task, commands and "done when": README.md; hints: `cargo labs hint 23`.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

// ANCHOR: starter
/// Keeps the memory of the last future it boxed, to box the next one in. (The starter
/// keeps nothing yet.)
#[derive(Default)]
pub struct Recycler {}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {}
    }

    /// Boxes `future`. Meant to reuse the memory of the previous future once that one is
    /// gone; the starter allocates a new box every time.
    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        RecycledFuture {
            future: Box::pin(future),
            _home: PhantomData,
        }
    }
}

/// A future boxed by a [`Recycler`]. It borrows the recycler, so it can hand its memory
/// back when it is dropped.
pub struct RecycledFuture<'a, T> {
    future: Pin<Box<dyn Future<Output = T> + 'a>>,
    _home: PhantomData<&'a Recycler>,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.future.as_mut().poll(cx)
    }
}
// ANCHOR_END: starter
