//! Wrong: asks for a `'static` future, as `spawn` does. `block_on` returns only once
//! the future is done, so the future may borrow from its caller; the bound refuses
//! that (see `borrows_from_its_caller`).
//! expect-error: E0373, E0597
//! replaces: block_on

pub fn block_on<F: Future + 'static>(fut: F) -> F::Output {
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
