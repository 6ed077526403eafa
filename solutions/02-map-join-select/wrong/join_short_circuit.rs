//! Wrong: `&&` short-circuits, so `b` is polled only once `a` is done. The output is
//! right, but the two sides run one after the other, not together, so the composed
//! future also needs more polls than it should.
//! expect-fail: join_polls_both_sides_on_every_poll, composing_them_allocates_nothing
//! replaces: join

enum Side<F: Future> {
    Running(F),
    Done(F::Output),
    Taken,
}

pub struct Join<A: Future, B: Future> {
    a: Side<A>,
    b: Side<B>,
}

pub fn join<A: Future, B: Future>(a: A, b: B) -> Join<A, B> {
    Join {
        a: Side::Running(a),
        b: Side::Running(b),
    }
}

impl<A: Future + Unpin, B: Future + Unpin> Unpin for Join<A, B> {}

impl<F: Future + Unpin> Side<F> {
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
            _ => unreachable!(),
        }
    }
}

impl<A, B> Future for Join<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if this.a.poll_done(cx) && this.b.poll_done(cx) {
            Poll::Ready((this.a.take(), this.b.take()))
        } else {
            Poll::Pending
        }
    }
}
