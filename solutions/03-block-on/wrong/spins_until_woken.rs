//! Wrong: a real waker that sets a flag and unparks, but `block_on` never parks: it
//! calls `yield_now` until the flag is set. It polls only after a wake-up, so every
//! count is right; but while the future waits, the thread never sleeps and keeps a CPU
//! core busy (`std::hint::spin_loop` in place of `yield_now` is the same). The OS sees
//! it running at every look (Linux; elsewhere the test cannot tell).
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
                    thread::yield_now();
                }
            }
        }
    }
}
