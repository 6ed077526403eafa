//! Solution to lab 03: `block_on` with a parking waker.
//!
//! The one `Arc` in the solutions: `std::task::Wake` works on `Arc<Self>`, because a
//! waker may be cloned and sent to other threads. See the lab README.
#![expect(clippy::disallowed_types, reason = "std::task::Wake requires Arc")]

// ANCHOR: solution
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

// ANCHOR: waker
/// The waker's state: the thread to wake up.
struct ThreadWaker {
    thread: Thread,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.thread.unpark();
    }

    // Without this, `wake_by_ref` would clone the `Arc` only to call `wake`.
    fn wake_by_ref(self: &Arc<Self>) {
        self.thread.unpark();
    }
}
// ANCHOR_END: waker

// ANCHOR: block_on
/// Runs `fut` to completion on this thread and returns its output.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let waker = Waker::from(Arc::new(ThreadWaker {
        thread: thread::current(),
    }));
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            // Sleep until the waker unparks us. If it already did (a wake that came
            // during the poll), `park` returns at once: the wake is not lost.
            Poll::Pending => thread::park(),
        }
    }
}
// ANCHOR_END: block_on
// ANCHOR_END: solution
