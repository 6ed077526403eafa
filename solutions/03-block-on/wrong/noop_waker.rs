//! Wrong: parks between polls, but hands the future a waker that does nothing.
//! A future that is ready at once still works; any future that has to be woken
//! leaves the thread parked for good (the tests' watchdog fails them).
//! expect-fail: builds_its_waker_once, completes_when_woken_from_another_thread, drops_the_future_before_it_returns, keeps_up_with_500_wakes, polls_once_per_wake, runs_a_future_that_is_not_send, sleeps_while_it_waits
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park(),
        }
    }
}
