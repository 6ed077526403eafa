//! Solution to lab 03: `block_on` with a parking waker.
//!
//! The one `Arc` in the solutions: `std::task::Wake` works on `Arc<Self>`, because a
//! waker may be cloned and sent to other threads. See the lab README.
#![expect(clippy::disallowed_types, reason = "std::task::Wake requires Arc")]

// ANCHOR: solution
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

// ANCHOR: waker
/// The waker's state: the thread to wake up, and whether a wake came.
struct ThreadWaker {
    thread: Thread,
    /// Set by a wake, cleared by `block_on`. `park` is allowed to return without any
    /// `unpark` (its docs say so), and other code on this thread may consume the
    /// unpark token; the flag says whether the future really asked to be polled.
    woken: AtomicBool,
}

impl ThreadWaker {
    fn for_current_thread() -> Arc<Self> {
        Arc::new(ThreadWaker {
            thread: thread::current(),
            woken: AtomicBool::new(false),
        })
    }
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    // Without this, `wake_by_ref` would clone the `Arc` only to call `wake`.
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}
// ANCHOR_END: waker

// ANCHOR: block_on
/// Runs `fut` to completion on this thread and returns its output.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let state = ThreadWaker::for_current_thread();
    let waker = Waker::from(Arc::clone(&state));
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            // Sleep until a wake. A wake that came during the poll has set the flag
            // already: no sleep, and the wake is not lost.
            Poll::Pending => {
                while !state.woken.swap(false, Ordering::Acquire) {
                    thread::park();
                }
            }
        }
    }
}
// ANCHOR_END: block_on
// ANCHOR_END: solution
