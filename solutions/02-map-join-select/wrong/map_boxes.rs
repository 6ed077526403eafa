//! Wrong: gets out of `Pin` trouble by boxing the inner future. `Pin<Box<_>>` can be
//! polled whatever it holds, so `Fut` needs no `Unpin` bound; but every `map` now costs
//! a heap allocation, which the counting allocator sees.
//! expect-fail: composing_them_allocates_nothing
//! replaces: map

/// `future`'s output, passed through `f`.
pub struct Map<Fut, F> {
    future: Pin<Box<Fut>>,
    f: Option<F>,
}

/// Runs `future`, then `f` on its output.
pub fn map<Fut, F>(future: Fut, f: F) -> Map<Fut, F> {
    Map {
        future: Box::pin(future),
        f: Some(f),
    }
}

impl<Fut, F> Unpin for Map<Fut, F> {}

impl<Fut, F, T> Future for Map<Fut, F>
where
    Fut: Future,
    F: FnOnce(Fut::Output) -> T,
{
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        match this.future.as_mut().poll(cx) {
            Poll::Ready(output) => {
                Poll::Ready((this.f.take().expect("polled after completion"))(output))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
