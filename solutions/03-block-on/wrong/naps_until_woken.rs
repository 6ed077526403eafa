//! Wrong: a real waker that sets a flag, but `block_on` sleeps 1 ms at a time until the
//! flag is set, instead of parking until the waker unparks it. It polls only after a
//! wake-up, so every count is right; but the thread wakes up a thousand times a second
//! to look, and answers each wake-up up to 1 ms late. The OS counts its naps (Linux;
//! elsewhere the test cannot tell).
//! expect-fail: sleeps_while_it_waits
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let state = ThreadWaker::for_current_thread();
    let waker = Waker::from(Arc::clone(&state));
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => {
                while !state.woken.swap(false, Ordering::Acquire) {
                    thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        }
    }
}
