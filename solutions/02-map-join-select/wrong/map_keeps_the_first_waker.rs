//! Wrong: `Map` keeps the waker of its first poll and polls its future with that one
//! ever after, "to save a clone per poll". Polled by one task from start to end, nothing
//! shows; but a future can be handed from one task to another between two polls, and
//! then the child's wake-up goes to the task that polled first.
//! expect-fail: they_pass_the_waker_of_the_latest_poll
//! replaces: map

use std::task::Waker;

pub struct Map<Fut, F> {
    future: Fut,
    f: Option<F>,
    /// The waker of the first poll.
    waker: Option<Waker>,
}

pub fn map<Fut, F>(future: Fut, f: F) -> Map<Fut, F> {
    Map {
        future,
        f: Some(f),
        waker: None,
    }
}

impl<Fut: Unpin, F> Unpin for Map<Fut, F> {}

impl<Fut, F, T> Future for Map<Fut, F>
where
    Fut: Future + Unpin,
    F: FnOnce(Fut::Output) -> T,
{
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        let waker = this.waker.get_or_insert_with(|| cx.waker().clone());
        let mut first = Context::from_waker(waker);
        match Pin::new(&mut this.future).poll(&mut first) {
            Poll::Ready(output) => {
                let f = this.f.take().expect("Map polled after it completed");
                Poll::Ready(f(output))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
