//! Wrong: `Send + 'static` on the output, copied from `spawn`'s `JoinHandle`. The
//! output is returned on the same thread, before the caller's locals are gone: it may
//! hold an `Rc` and borrow from the caller, as in the tests.
//! expect-error: E0277, E0597
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output
where
    F::Output: Send + 'static,
{
    let mut fut = pin!(fut);
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
