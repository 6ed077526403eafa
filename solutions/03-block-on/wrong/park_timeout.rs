//! Wrong: a real waker, but `park_timeout(1 ms)` "in case a wake-up is lost". A lost
//! wake-up is a bug to fix, not to poll around: this polls every millisecond while the
//! future waits, whether or not anyone woke it.
//! expect-fail: polls_once_per_wake, sleeps_while_it_waits
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let waker = Waker::from(ThreadWaker::for_current_thread());
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park_timeout(std::time::Duration::from_millis(1)),
        }
    }
}
