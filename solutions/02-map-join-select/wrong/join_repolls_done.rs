//! Wrong: keeps both futures and polls both on every poll, even one that has already
//! returned `Ready`. The `Future` contract forbids that: the tests' futures panic, and
//! many real ones do too (an `async` block panics with "polled after completion").
//! expect-fail: composing_them_allocates_nothing, join_passes_the_tasks_waker_to_both_sides, join_polls_both_sides_on_every_poll, join_waits_for_the_slower_side, they_run_under_a_real_executor
//! expect-pattern: polled-after-ready
//! replaces: join

pub struct Join<A: Future, B: Future> {
    a: A,
    b: B,
    a_output: Option<A::Output>,
    b_output: Option<B::Output>,
}

pub fn join<A: Future, B: Future>(a: A, b: B) -> Join<A, B> {
    Join {
        a,
        b,
        a_output: None,
        b_output: None,
    }
}

impl<A: Future + Unpin, B: Future + Unpin> Unpin for Join<A, B> {}

impl<A, B> Future for Join<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Poll::Ready(output) = Pin::new(&mut this.a).poll(cx) {
            this.a_output = Some(output);
        }
        if let Poll::Ready(output) = Pin::new(&mut this.b).poll(cx) {
            this.b_output = Some(output);
        }
        match (this.a_output.take(), this.b_output.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (a, b) => {
                (this.a_output, this.b_output) = (a, b);
                Poll::Pending
            }
        }
    }
}
