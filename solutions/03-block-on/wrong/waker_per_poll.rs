//! Wrong: builds a new waker, a new `Arc`, on every turn of the loop. It works, but
//! allocates once per poll where once per `block_on` is enough.
//! expect-fail: builds_its_waker_once
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    loop {
        let state = ThreadWaker::for_current_thread();
        let waker = Waker::from(Arc::clone(&state));
        match fut.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(output) => return output,
            Poll::Pending => {
                while !state.woken.swap(false, Ordering::Acquire) {
                    thread::park();
                }
            }
        }
    }
}
