//! Wrong: `Send + 'static` on `Map`'s output, copied from `spawn`'s signature. The
//! tests' futures borrow from the test and hold `Rc`s, so the bounds refuse them;
//! nothing in a combinator needs either.
//! expect-error: E0277
//! replaces: map

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
    T: Send + 'static,
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
