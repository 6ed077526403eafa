//! Wrong: returns only the winner's output and drops the other future, like a
//! `select!` that cancels the loser. Whatever work the loser had done is gone, and the
//! caller cannot finish it: the tests that take the loser back do not compile.
//! expect-error: E0308
//! replaces: select

pub struct Select<A, B> {
    racers: Option<(A, B)>,
}

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
    type Output = Either<A::Output, B::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let (a, b) = this
            .racers
            .as_mut()
            .expect("Select polled after it completed");
        if let Poll::Ready(output) = Pin::new(a).poll(cx) {
            this.racers = None;
            return Poll::Ready(Either::Left(output));
        }
        if let Poll::Ready(output) = Pin::new(b).poll(cx) {
            this.racers = None;
            return Poll::Ready(Either::Right(output));
        }
        Poll::Pending
    }
}
