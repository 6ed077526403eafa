//! Wrong: hands a clone of the waker to a new thread that wakes it, and joins that
//! thread before answering `Pending`, so the wake-up lands before `poll` returns. Every
//! count is right, but each `Pending` costs an OS thread and blocks the executor's
//! thread until it ends: the allocation counter sees the thread being spawned.
//! expect-fail: a_poll_allocates_nothing
//! replaces: poll

fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
    if self.remaining == 0 {
        return Poll::Ready(());
    }
    self.remaining -= 1;
    let waker = cx.waker().clone();
    std::thread::spawn(move || waker.wake())
        .join()
        .expect("the waking thread panicked");
    Poll::Pending
}
