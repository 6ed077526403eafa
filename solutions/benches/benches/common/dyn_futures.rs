//! Chapter 23's benchmark code, a module of both `benches/dyn_futures.rs` and
//! `benches/dyn_futures_jemalloc.rs` (the same code on two allocators): the nested stream of Matthias247's
//! async_trait_experiments, in four versions. A counter yields `ITEMS` numbers; a wrapper
//! holds a counter and forwards `next` to it; one iteration builds a wrapper and drains
//! it. So every item costs two calls to `next`, one on the wrapper and one on the counter,
//! and the versions differ in how those calls return their futures:
//!
//! 1. `no_trait`: concrete types and `async fn`; the futures nest inside each other.
//! 2. `async_trait`: `#[async_trait(?Send)]`; the wrapper holds a `Box<dyn …>` counter;
//!    both calls box their future, the one on the concrete wrapper too.
//! 3. `boxed`: a hand-written trait returning `Pin<Box<dyn Future + '_>>`, as above.
//! 4. `recycled`: a trait returning lab 23's `RecycledFuture`: each object boxes its
//!    futures in its own recycler, so the boxes of the first item serve all the others.

use std::pin::Pin;

use recycling_box::{RecycledFuture, Recycler};

/// Numbers each stream yields per iteration: the seed's `STREAM_ITERATIONS`.
pub const ITEMS: u32 = 50;

/// The sum every version returns for one iteration: 49 + 48 + … + 0.
pub const SUM: u64 = (ITEMS as u64) * (ITEMS as u64 - 1) / 2;

/// One step of every counter: the next number, counting down, or `None` at the end.
fn step(left: &mut u32) -> Option<u32> {
    *left = left.checked_sub(1)?;
    Some(*left)
}

// ANCHOR: no_trait
/// (1) No trait object: the wrapper's future holds the counter's future inline.
pub struct Counter {
    left: u32,
}

impl Counter {
    pub async fn next(&mut self) -> Option<u32> {
        step(&mut self.left)
    }
}

pub struct Wrapper {
    inner: Counter,
}

impl Wrapper {
    pub async fn next(&mut self) -> Option<u32> {
        self.inner.next().await
    }
}
// ANCHOR_END: no_trait

/// One iteration of version (1).
pub async fn no_trait() -> u64 {
    let mut stream = Wrapper {
        inner: Counter {
            left: std::hint::black_box(ITEMS),
        },
    };
    let mut sum = 0;
    while let Some(n) = stream.next().await {
        sum += u64::from(std::hint::black_box(n));
    }
    sum
}

// ANCHOR: async_trait
/// (2) async-trait: every `next` returns `Pin<Box<dyn Future + '_>>`, boxed by the macro.
#[async_trait::async_trait(?Send)]
pub trait AsyncTraitStream {
    async fn next(&mut self) -> Option<u32>;
}

pub struct AsyncTraitCounter {
    left: u32,
}

#[async_trait::async_trait(?Send)]
impl AsyncTraitStream for AsyncTraitCounter {
    async fn next(&mut self) -> Option<u32> {
        step(&mut self.left)
    }
}

pub struct AsyncTraitWrapper {
    inner: Box<dyn AsyncTraitStream>,
}

#[async_trait::async_trait(?Send)]
impl AsyncTraitStream for AsyncTraitWrapper {
    async fn next(&mut self) -> Option<u32> {
        self.inner.next().await
    }
}
// ANCHOR_END: async_trait

/// One iteration of version (2).
pub async fn async_trait() -> u64 {
    let mut stream = AsyncTraitWrapper {
        inner: Box::new(AsyncTraitCounter {
            left: std::hint::black_box(ITEMS),
        }),
    };
    let mut sum = 0;
    while let Some(n) = stream.next().await {
        sum += u64::from(std::hint::black_box(n));
    }
    sum
}

/// The future of a boxed `next`.
type BoxNext<'a> = Pin<Box<dyn Future<Output = Option<u32>> + 'a>>;

// ANCHOR: boxed
/// (3) The same signature written by hand: a `Box<dyn Future>` per call.
pub trait BoxedStream {
    fn next(&mut self) -> BoxNext<'_>;
}

pub struct BoxedCounter {
    left: u32,
}

impl BoxedStream for BoxedCounter {
    fn next(&mut self) -> BoxNext<'_> {
        Box::pin(async move { step(&mut self.left) })
    }
}

pub struct BoxedWrapper {
    inner: Box<dyn BoxedStream>,
}

impl BoxedStream for BoxedWrapper {
    fn next(&mut self) -> BoxNext<'_> {
        Box::pin(async move { self.inner.next().await })
    }
}
// ANCHOR_END: boxed

/// One iteration of version (3).
pub async fn boxed() -> u64 {
    let mut stream = BoxedWrapper {
        inner: Box::new(BoxedCounter {
            left: std::hint::black_box(ITEMS),
        }),
    };
    let mut sum = 0;
    while let Some(n) = stream.next().await {
        sum += u64::from(std::hint::black_box(n));
    }
    sum
}

// ANCHOR: recycled
/// (4) Lab 23's recycling box: each object boxes its `next` futures in its own recycler.
pub trait RecycledStream {
    fn next(&mut self) -> RecycledFuture<'_, Option<u32>>;
}

pub struct RecycledCounter {
    left: u32,
    recycler: Recycler,
}

impl RecycledStream for RecycledCounter {
    fn next(&mut self) -> RecycledFuture<'_, Option<u32>> {
        let Self { left, recycler } = self;
        recycler.recycle(async move { step(left) })
    }
}

pub struct RecycledWrapper {
    inner: Box<dyn RecycledStream>,
    recycler: Recycler,
}

impl RecycledStream for RecycledWrapper {
    fn next(&mut self) -> RecycledFuture<'_, Option<u32>> {
        let Self { inner, recycler } = self;
        recycler.recycle(async move { inner.next().await })
    }
}
// ANCHOR_END: recycled

/// One iteration of version (4).
pub async fn recycled() -> u64 {
    let mut stream = RecycledWrapper {
        inner: Box::new(RecycledCounter {
            left: std::hint::black_box(ITEMS),
            recycler: Recycler::new(),
        }),
        recycler: Recycler::new(),
    };
    let mut sum = 0;
    while let Some(n) = stream.next().await {
        sum += u64::from(std::hint::black_box(n));
    }
    sum
}

/// Checks that every version yields the same numbers (run before measuring).
pub fn check() {
    for sum in [
        benches::drive(no_trait()),
        benches::drive(async_trait()),
        benches::drive(boxed()),
        benches::drive(recycled()),
    ] {
        assert_eq!(sum, SUM);
    }
}
