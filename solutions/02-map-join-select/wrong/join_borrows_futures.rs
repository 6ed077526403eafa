//! Wrong: wraps `futures::future::Join` instead of writing the state machine. It would
//! pass every test, so the lab does not depend on the futures crate (only its tests
//! do), and this does not compile.
//! expect-error: E0433
//! replaces: join

pub struct Join<A: Future, B: Future>(futures::future::Join<A, B>);

pub fn join<A: Future, B: Future>(a: A, b: B) -> Join<A, B> {
    Join(futures::future::join(a, b))
}

impl<A, B> Future for Join<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.get_mut().0).poll(cx)
    }
}
