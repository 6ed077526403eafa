//! Lab 03: `block_on` with a parking waker.
//!
//! `block_on` runs one future to completion on the calling thread. Between two polls
//! it must sleep (park), and the future's waker must wake it up (unpark), from any
//! thread. Task and hints: README.md next to this file.

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
use std::sync::Arc;
use std::task::Wake;
use std::thread::Thread;

/// The waker's state: the thread to wake up.
struct ThreadWaker {
    thread: Thread,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        todo!("wake up `self.thread`")
    }
}

/// Runs `fut` to completion on this thread and returns its output.
///
/// Poll the future; while it answers `Poll::Pending`, park this thread until the
/// future's waker unparks it, then poll again.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    todo!("pin `fut`, build a Waker from a ThreadWaker, then poll and park in a loop")
}
// ANCHOR_END: starter
