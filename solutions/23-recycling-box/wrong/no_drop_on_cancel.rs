//! Wrong: drops the inner future when it finishes, and on drop only hands the memory
//! back. A future dropped before it finishes (cancelled, the loser of a `select`) is
//! never dropped: whatever it holds (a guard, a connection, a buffer) leaks. (It changes
//! the given `poll`, which the runner would flag too.)
//! expect-fail: a_future_dropped_before_it_finishes_is_dropped, a_future_may_use_its_recycler_while_polled_or_dropped, a_future_that_panics_still_gives_its_block_back, every_order_of_calls_finishes_and_drops
//! replaces: future

// ANCHOR: given_handle
pub struct RecycledFuture<'a, T> {
    future: NonNull<dyn Future<Output = T> + 'a>,
    home: &'a Recycler,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let future = unsafe { Pin::new_unchecked(self.future.as_mut()) };
        let poll = future.poll(cx);
        if poll.is_ready() {
            unsafe { self.future.drop_in_place() };
        }
        poll
    }
}
// ANCHOR_END: given_handle

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        self.home.release(self.future.cast(), layout);
    }
}
