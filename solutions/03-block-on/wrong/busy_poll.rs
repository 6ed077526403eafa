//! Wrong: polls again and again without ever parking. It returns the right values,
//! but burns a CPU core while it waits, and polls the future many times per wake.
//! expect-fail: polls_once_per_wake, sleeps_while_it_waits
//! expect-pattern: unwoken-poll
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let waker = Waker::from(ThreadWaker::for_current_thread());
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = fut.as_mut().poll(&mut cx) {
            return output;
        }
        std::hint::spin_loop();
    }
}
