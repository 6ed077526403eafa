//! Wrong: drops the inner future as soon as it finishes, "to release it early", and then
//! again when the `RecycledFuture` is dropped. Dropping a value twice is undefined
//! behaviour; here the drop probes (and the zero-sized future, which counts its drops)
//! simply count two drops per future. (It changes the given `poll`, which the runner
//! would flag too.)
//! expect-fail: a_future_may_use_its_recycler_while_polled_or_dropped, a_zero_sized_future_works, every_future_is_dropped_exactly_once, every_order_of_calls_finishes_and_drops
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
        let _release = Release {
            home: self.home,
            ptr: self.future.cast(),
            layout,
        };
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
