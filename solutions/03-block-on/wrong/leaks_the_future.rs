//! Wrong: gets out of `Pin` trouble with `Box::leak`: a leaked future never moves
//! again, so pinning it is safe. Every output is right, but the future is never
//! dropped: whatever it holds (a guard, a file, a borrow's clean-up) is never released,
//! and each call leaks its memory. `pin!` pins on the stack, and the future is dropped
//! when `block_on` returns.
//! expect-fail: drops_the_future_before_it_returns
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let fut = Box::leak(Box::new(fut));
    // SAFETY: the future is leaked, so it stays where it is for ever.
    let mut fut = unsafe { std::pin::Pin::new_unchecked(fut) };
    let state = ThreadWaker::for_current_thread();
    let waker = Waker::from(Arc::clone(&state));
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => {
                while !state.woken.swap(false, Ordering::Acquire) {
                    thread::park();
                }
            }
        }
    }
}
