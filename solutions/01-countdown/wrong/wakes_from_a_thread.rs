//! Wrong: copies the timer future of the async book: hands a clone of the waker to a
//! new thread, which wakes it. The wake-up comes after `poll` has returned, from
//! another thread, at the cost of a thread per poll; for a future that waits for
//! nothing, `poll` can wake the task itself before it returns.
//! The thread per poll allocates, every time; whether the late wake-ups also show in
//! the wake counts depends on how the threads are scheduled, so those may fail or not.
//! expect-fail: a_poll_allocates_nothing
//! may-also-fail: wakes_once_per_pending_and_never_after_ready, wakes_the_waker_of_the_latest_poll, block_on_runs_it_to_the_end
//! replaces: poll

fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
    if self.remaining == 0 {
        return Poll::Ready(());
    }
    self.remaining -= 1;
    let waker = cx.waker().clone();
    std::thread::spawn(move || waker.wake());
    Poll::Pending
}
