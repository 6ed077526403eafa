//! Solution to lab 02: `Map`, `Join` and `Select` by hand.

use std::pin::Pin;
use std::task::{Context, Poll};

/// Which side of a `Select` finished first. (The futures crate has the same enum; this
/// lab does not depend on futures, so the three combinators are yours to write.)
#[derive(Debug, PartialEq)]
pub enum Either<A, B> {
    Left(A),
    Right(B),
}

// ANCHOR: solution
// ANCHOR: map
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
        let this = self.get_mut();
        match Pin::new(&mut this.future).poll(cx) {
            Poll::Ready(output) => {
                let f = this.f.take().expect("Map polled after it completed");
                Poll::Ready(f(output))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
// ANCHOR_END: map

// ANCHOR: join
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

impl<F: Future + Unpin> Side<F> {
    /// Polls the future if it is still running; true once its output is here.
    fn poll_done(&mut self, cx: &mut Context<'_>) -> bool {
        if let Side::Running(future) = self {
            match Pin::new(future).poll(cx) {
                Poll::Ready(output) => *self = Side::Done(output),
                Poll::Pending => return false,
            }
        }
        true
    }

    fn take(&mut self) -> F::Output {
        match std::mem::replace(self, Side::Taken) {
            Side::Done(output) => output,
            _ => unreachable!("Join takes an output only once both are done"),
        }
    }
}

impl<A, B> Future for Join<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    type Output = (A::Output, B::Output);

    // ANCHOR: join_poll
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Poll both sides on every poll: either may be the one that was woken.
        let a_done = this.a.poll_done(cx);
        let b_done = this.b.poll_done(cx);
        if a_done && b_done {
            Poll::Ready((this.a.take(), this.b.take()))
        } else {
            Poll::Pending
        }
    }
    // ANCHOR_END: join_poll
}
// ANCHOR_END: join

// ANCHOR: select
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

    // ANCHOR: select_poll
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let (a, b) = this
            .racers
            .as_mut()
            .expect("Select polled after it completed");
        if let Poll::Ready(output) = Pin::new(a).poll(cx) {
            let (_, b) = this.racers.take().expect("checked above");
            return Poll::Ready(Either::Left((output, b)));
        }
        if let Poll::Ready(output) = Pin::new(b).poll(cx) {
            let (a, _) = this.racers.take().expect("checked above");
            return Poll::Ready(Either::Right((output, a)));
        }
        Poll::Pending
    }
    // ANCHOR_END: select_poll
}
// ANCHOR_END: select
// ANCHOR_END: solution
