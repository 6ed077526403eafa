//! Wrong: marks the home block free as soon as its future finishes ("a finished future
//! needs no memory"), not when the future is dropped. But a finished future still lives
//! in its block until its `RecycledFuture` is dropped, and its drop has not run yet: a
//! call made in between is written over it, and dropping the first handle later drops
//! the second call's future (which is then dropped twice, and the first never). The
//! existing tests always drop a finished future before the next call; the test that runs
//! every order of calls, finishes and drops does not. (It changes the given `poll`, which
//! the runner would flag too.)
//! expect-fail: every_order_of_calls_finishes_and_drops
//! replaces: future

// ANCHOR: given_handle
pub struct RecycledFuture<'a, T> {
    future: NonNull<dyn Future<Output = T> + 'a>,
    home: &'a Recycler,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: the future is alive and never moves.
        let poll = unsafe { Pin::new_unchecked(self.future.as_mut()) }.poll(cx);
        if poll.is_ready()
            && self
                .home
                .home
                .get()
                .is_some_and(|home| home.ptr == self.future.cast())
        {
            // "Done: the next call may have the home block."
            self.home.busy.set(false);
        }
        poll
    }
}
// ANCHOR_END: given_handle

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the future is alive until it is dropped below.
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        let _release = Release {
            home: self.home,
            ptr: self.future.cast(),
            layout,
        };
        // SAFETY: dropped here only, once.
        unsafe { self.future.drop_in_place() };
    }
}

struct Release<'a> {
    home: &'a Recycler,
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.home.release(self.ptr, self.layout);
    }
}
