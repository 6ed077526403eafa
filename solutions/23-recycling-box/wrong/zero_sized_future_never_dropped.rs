//! Wrong: skips the drop of a zero-sized future ("zero bytes hold nothing to drop"), and
//! only hands its block back. But a type of zero bytes can still have a `Drop` that does
//! something (release a permit, count, log), and it must run once, like any future's. The
//! test's zero-sized future counts its drops, and finds none.
//! expect-fail: a_zero_sized_future_works
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
        // SAFETY: the future is alive until it is dropped below.
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        // Hands the block back when this function ends: after the future is gone, and
        // even if the future's own drop panics (or a block would be lost, or the home
        // block stay busy for good).
        let _release = Release {
            home: self.home,
            ptr: self.future.cast(),
            layout,
        };
        // SAFETY: the future was written in `recycle` and is dropped only here, once,
        // whether it finished or not. Its block is handed back only after this line.
        // "A future of zero bytes holds nothing to drop."
        if layout.size() != 0 {
            unsafe { self.future.drop_in_place() };
        }
    }
}

/// Hands a future's block back to its recycler when dropped.
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
