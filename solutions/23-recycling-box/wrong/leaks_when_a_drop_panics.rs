//! Wrong: drops the future, then hands its block back, in two plain statements. When the
//! future's own drop panics, the second never runs: a block of its own is never freed,
//! and the home block stays busy for good, so every later call allocates. (Rust lets a
//! destructor panic; `Box` still frees its memory when it does.) The block must be handed
//! back from the drop of a guard, which runs while the panic unwinds.
//! expect-fail: a_future_that_panics_still_gives_its_block_back
//! replaces: future

pub struct RecycledFuture<'a, T> {
    future: NonNull<dyn Future<Output = T> + 'a>,
    home: &'a Recycler,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: the future is alive and never moves.
        unsafe { Pin::new_unchecked(self.future.as_mut()) }.poll(cx)
    }
}

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the future is alive until it is dropped below.
        let layout = Layout::for_value(unsafe { self.future.as_ref() });
        // SAFETY: dropped here only, once, finished or not.
        unsafe { self.future.drop_in_place() };
        self.home.release(self.future.cast(), layout);
    }
}
