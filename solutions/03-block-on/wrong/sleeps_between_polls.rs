//! Wrong: never builds a waker. It polls with `Waker::noop()` and sleeps a few
//! milliseconds between polls, so every future finishes in the end, and with fast
//! events the poll counts even look right. But it polls whether or not anything
//! happened, and it answers a wake-up only when its sleep is over.
//! expect-fail: builds_its_waker_once, completes_when_woken_from_another_thread, drops_the_future_before_it_returns, keeps_up_with_500_wakes, polls_once_per_wake, sleeps_while_it_waits
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = fut.as_mut().poll(&mut cx) {
            return output;
        }
        thread::sleep(std::time::Duration::from_millis(2));
    }
}
