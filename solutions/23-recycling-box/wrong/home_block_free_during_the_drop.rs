//! Wrong: for a future in the home block, marks the block free first and then drops the
//! future ("nothing is freed, only marked free, so the order cannot matter"). But the
//! future's drop is code, and it may call `recycle` on the same recycler: that call finds
//! the home block free and writes its future over the one being dropped. The test whose
//! future makes a call from its own drop catches it; the block must stay busy until the
//! drop has returned.
//! expect-fail: a_future_may_use_its_recycler_while_polled_or_dropped
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
        let ptr: NonNull<u8> = self.future.cast();
        if self.home.home.get().is_some_and(|home| home.ptr == ptr) {
            // "Only marked free, not freed: it may come first."
            self.home.busy.set(false);
            // SAFETY: dropped here only, once.
            unsafe { self.future.drop_in_place() };
        } else {
            let _release = Release {
                home: self.home,
                ptr,
                layout,
            };
            // SAFETY: dropped here only, once; its block is freed after.
            unsafe { self.future.drop_in_place() };
        }
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
