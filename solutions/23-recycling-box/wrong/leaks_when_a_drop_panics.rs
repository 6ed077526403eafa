//! Wrong: drops the future, then hands its block back, in two plain statements. When the
//! future's own drop panics, the second never runs: a block of its own is never freed,
//! and the home block stays busy for good, so every later call allocates. (Rust lets a
//! destructor panic; `Box` still frees its memory when it does.) The block must be handed
//! back from the drop of a guard, which runs while the panic unwinds.
//! expect-fail: a_future_that_panics_still_gives_its_block_back
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
        // SAFETY: dropped here only, once, finished or not.
        unsafe { self.future.drop_in_place() };
        self.home.release(self.future.cast(), layout);
    }
}
