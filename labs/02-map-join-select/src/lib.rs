//! Lab 02: `Map`, `Join` and `Select` by hand.
//!
//! Three combinators, each one a plain struct that implements `Future` by polling
//! the futures inside it. The structs and constructors are written; write the three
//! `poll` methods. Combined, they must build one value and allocate nothing.
//! Task and hints: README.md next to this file.

use std::pin::Pin;
use std::task::{Context, Poll};

/// Which side of a `Select` finished first. (The futures crate has the same enum; this
/// lab does not depend on futures, so the three combinators are yours to write.)
#[derive(Debug, PartialEq)]
pub enum Either<A, B> {
    Left(A),
    Right(B),
}

// ANCHOR: map (the book quotes the code from here to the ANCHOR_END line)
/// `future`'s output, passed through `f`.
pub struct Map<Fut, F> {
    future: Fut,
    /// `Some` until the output has been mapped: `FnOnce` can run only once.
    f: Option<F>,
}

/// Runs `future`, then `f` on its output.
pub fn map<Fut, F>(future: Fut, f: F) -> Map<Fut, F> {
    Map { future, f: Some(f) }
}

// `Map` never pins `f`, so it may move whenever `future` may.
impl<Fut: Unpin, F> Unpin for Map<Fut, F> {}

impl<Fut, F, T> Future for Map<Fut, F>
where
    Fut: Future + Unpin,
    F: FnOnce(Fut::Output) -> T,
{
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut(); // a plain `&mut Map`, because `Map` is `Unpin`
        let _ = (this, cx);
        todo!("poll the inner future; when it is ready, apply `f` to its output")
    }
}
// ANCHOR_END: map

// ANCHOR: join (the book quotes the code from here to the ANCHOR_END line)
/// One side of a `Join`: still running, finished with its output kept, or emptied.
enum Side<F: Future> {
    Running(F),
    Done(F::Output),
    Taken,
}

/// Both futures, polled together; their outputs as a pair.
pub struct Join<A: Future, B: Future> {
    a: Side<A>,
    b: Side<B>,
}

/// Runs `a` and `b` concurrently and waits for both.
pub fn join<A: Future, B: Future>(a: A, b: B) -> Join<A, B> {
    Join {
        a: Side::Running(a),
        b: Side::Running(b),
    }
}

// The outputs are never pinned, so `Join` may move whenever both futures may.
impl<A: Future + Unpin, B: Future + Unpin> Unpin for Join<A, B> {}

impl<A, B> Future for Join<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let _ = (this, cx);
        todo!("poll each side that is still running; Ready once both are done")
    }
}
// ANCHOR_END: join

// ANCHOR: select (the book quotes the code from here to the ANCHOR_END line)
/// Two futures racing; the winner's output, and the other future still unfinished.
pub struct Select<A, B> {
    /// `Some` until one side wins; then the loser is handed back to the caller.
    racers: Option<(A, B)>,
}

/// Runs `a` and `b` concurrently until one of them finishes.
pub fn select<A, B>(a: A, b: B) -> Select<A, B> {
    Select {
        racers: Some((a, b)),
    }
}

impl<A, B> Future for Select<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    type Output = Either<(A::Output, B), (B::Output, A)>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let _ = (this, cx);
        todo!("poll `a`, then `b`; the first one ready wins, the other goes back")
    }
}
// ANCHOR_END: select
