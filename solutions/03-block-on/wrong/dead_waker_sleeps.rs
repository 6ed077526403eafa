//! Wrong: builds a waker, but one whose `wake` does nothing, and sleeps 2 ms between
//! polls. The waker is only there to satisfy `Context::from_waker`: the loop polls
//! on its own schedule, woken or not.
//! expect-fail: polls_once_per_wake, sleeps_while_it_waits
//! replaces: solution

use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;

struct DeadWaker;

impl Wake for DeadWaker {
    fn wake(self: Arc<Self>) {}
}

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let waker = Waker::from(Arc::new(DeadWaker));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = fut.as_mut().poll(&mut cx) {
            return output;
        }
        thread::sleep(std::time::Duration::from_millis(2));
    }
}
