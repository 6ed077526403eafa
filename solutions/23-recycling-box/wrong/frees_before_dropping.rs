//! Wrong: hands the block back first, then drops the future in it. A block of its own is
//! then freed while its future is still to be dropped: the drop reads freed memory (a use
//! after free). With glibc the bytes are usually still there, so the drop seems to work;
//! the tests' allocator poisons freed memory, and the drops of the probes (and of the
//! future that panics in its drop) find poison. And the home block is free again while
//! its future's drop still runs: a call made from that drop is written over the future
//! being dropped.
//! expect-fail: a_future_may_use_its_recycler_while_polled_or_dropped, a_future_that_panics_still_gives_its_block_back, every_order_of_calls_finishes_and_drops
//! replaces: future

// ANCHOR: given_handle
/// A future boxed by a [`Recycler`]: it lives in the recycler's memory (or in a block of
/// its own), and hands that memory back when dropped.
pub struct RecycledFuture<'a, T> {
    /// The future, behind a pointer that carries its vtable (and so its size and
    /// alignment).
    future: NonNull<dyn Future<Output = T> + 'a>,
    home: &'a Recycler,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: the future is alive (it is dropped only in `drop`), it never moves (it
        // stays in its block until then, whatever happens to `self`), and `&mut self`
        // means nobody else is using it.
        let future = unsafe { Pin::new_unchecked(self.future.as_mut()) };
        future.poll(cx)
    }
}
// ANCHOR_END: given_handle

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the future is alive.
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        self.home.release(self.future.cast(), layout);
        // SAFETY: "dropped here only, once" (but its block may be gone already).
        unsafe { self.future.drop_in_place() };
    }
}
