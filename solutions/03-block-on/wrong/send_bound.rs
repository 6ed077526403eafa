//! Wrong: asks for a `Send` future, as a multi-threaded runtime's `spawn` does. The
//! future never leaves this thread, so the bound only turns away futures that hold
//! an `Rc`, like the one in `runs_a_future_that_is_not_send`.
//! expect-error: E0277
//! replaces: block_on

pub fn block_on<F: Future + Send>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let waker = Waker::from(ThreadWaker::for_current_thread());
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park(),
        }
    }
}
