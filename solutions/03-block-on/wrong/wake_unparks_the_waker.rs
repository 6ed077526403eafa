//! Wrong: takes `thread::current()` inside `wake`, so it unparks the thread that calls
//! `wake`, which is awake already. A future that wakes itself during its poll still
//! works; a wake-up from another thread leaves `block_on` parked, and the watchdog
//! fails those tests after 10 s.
//! expect-fail: completes_when_woken_from_another_thread, keeps_up_with_500_wakes, polls_once_per_wake, sleeps_while_it_waits
//! replaces: solution

use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;

struct ThreadWaker;

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        thread::current().unpark();
    }
}

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let waker = Waker::from(Arc::new(ThreadWaker));
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park(),
        }
    }
}
