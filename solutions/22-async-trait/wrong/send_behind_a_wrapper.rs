//! Wrong: the boxed future stays `Send`, "so that a caller may spawn it", and the tests'
//! `Rc` is smuggled past the bound by a wrapper with `unsafe impl Send`. Every test
//! passes; the `Send` is a lie (a caller that did spawn it would move an `Rc` to another
//! thread), and the lesson check names the lines that keep it.
//! expect-lesson: Send, unsafe
//! replaces: dyn_store

/// Claims to be `Send`, whatever it holds.
struct AssertSend<F>(F);

// SAFETY (claimed): nothing here ever leaves its thread.
unsafe impl<F> Send for AssertSend<F> {}

impl<F: Future> Future for AssertSend<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        // SAFETY: the field is never moved out of the pinned wrapper.
        unsafe { self.map_unchecked_mut(|this| &mut this.0) }.poll(cx)
    }
}

pub trait DynStore {
    fn get_dyn<'a>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + Send + 'a>>;
}

impl<T: Store> DynStore for T {
    fn get_dyn<'a>(&'a self, key: u32) -> Pin<Box<dyn Future<Output = Option<u64>> + Send + 'a>> {
        Box::pin(AssertSend(self.get(key)))
    }
}
