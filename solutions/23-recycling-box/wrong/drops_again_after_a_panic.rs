//! Wrong: when the future's drop panics, the guard drops it again ("finish the drop that
//! was cut short"), then hands the block back. But a drop that panics is not cut short:
//! as the panic unwinds, the drop glue still drops every field of the future. Dropping it
//! again runs its `Drop` a second time and drops (frees) its fields twice. The test whose
//! future panics in its drop counts two runs of that drop, and the tests' allocator
//! reports the future's buffer freed twice. Drop the future once; the guard only hands
//! the block back.
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
        // Hands the block back when this function ends: after the future is gone, and
        // even if the future's own drop panics (or a block would be lost, or the home
        // block stay busy for good).
        let mut release = Release {
            home: self.home,
            future: self.future,
            layout,
            dropped: false,
        };
        // SAFETY: the future was written in `recycle` and is dropped only here, once,
        // whether it finished or not. Its block is handed back only after this line.
        unsafe { self.future.drop_in_place() };
        release.dropped = true;
    }
}

/// Hands a future's block back to its recycler when dropped.
struct Release<'a, T> {
    home: &'a Recycler,
    future: NonNull<dyn Future<Output = T> + 'a>,
    layout: Layout,
    /// Set once the future's drop has returned.
    dropped: bool,
}

impl<T> Drop for Release<'_, T> {
    fn drop(&mut self) {
        if !self.dropped {
            // "The future's drop panicked halfway: finish dropping it."
            // SAFETY: none. The drop glue has dropped its fields already.
            unsafe { self.future.drop_in_place() };
        }
        self.home.release(self.future.cast(), self.layout);
    }
}
