//! Wrong: `Map` polls its future with `Waker::noop()` instead of the task's `cx`, so
//! the inner future's wake-up is lost.
//! expect-fail: composing_them_allocates_nothing, map_applies_the_function_once_at_the_end, map_passes_the_tasks_waker_down, they_pass_the_waker_of_the_latest_poll
//! expect-pattern: foreign-waker, lost-wake
//! replaces: map

pub struct Map<Fut, F> {
    future: Fut,
    f: Option<F>,
}

pub fn map<Fut, F>(future: Fut, f: F) -> Map<Fut, F> {
    Map { future, f: Some(f) }
}

impl<Fut: Unpin, F> Unpin for Map<Fut, F> {}

impl<Fut, F, T> Future for Map<Fut, F>
where
    Fut: Future + Unpin,
    F: FnOnce(Fut::Output) -> T,
{
    type Output = T;

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        let mut noop = Context::from_waker(std::task::Waker::noop());
        match Pin::new(&mut this.future).poll(&mut noop) {
            Poll::Ready(output) => {
                let f = this.f.take().expect("Map polled after it completed");
                Poll::Ready(f(output))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
