//! Wrong: the returned future's lifetime is the future's own, not the recycler's borrow:
//! `recycle(&self, …) -> RecycledFuture<'a, …>` with `'a` only from `F: 'a`, and the handle
//! keeps a raw pointer to its recycler instead of `&'a Recycler`. Every test that runs
//! passes (none drops a recycler under a live future: correct code cannot), but now such
//! code compiles: dropping or moving the recycler while its future lives leaves the
//! handle's pointer dangling, and the handle's drop then hands its block back to a
//! recycler that is gone. The test that compiles those misuses against the library finds
//! that they are no longer refused. (The handle is given code: the runner would flag the
//! change too.)
//! expect-fail: safe_code_cannot_misuse_the_recycler
//! replaces: solution

#[derive(Clone, Copy)]
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

fn block_layout(layout: Layout) -> Layout {
    Layout::from_size_align(layout.size().max(1), layout.align())
        .expect("rounding a valid layout's size up to 1 keeps it valid")
}

impl Block {
    fn new(layout: Layout) -> Block {
        let layout = block_layout(layout);
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size() && layout.align() <= self.layout.align()
    }

    /// # Safety
    /// Call it once per block, when nothing lives in it any more.
    unsafe fn free(self) {
        // SAFETY: allocated with exactly `self.layout`.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[derive(Default)]
pub struct Recycler {
    home: Cell<Option<Block>>,
    busy: Cell<bool>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            home: Cell::new(None),
            busy: Cell::new(false),
        }
    }

    // "'a is how long the future may live": but nothing ties it to `&self`.
    pub fn recycle<'a, F: Future + 'a>(&self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = if self.busy.get() {
            Block::new(layout)
        } else {
            let block = match self.home.get() {
                Some(home) if home.fits(layout) => home,
                too_small => {
                    if let Some(home) = too_small {
                        // SAFETY: not busy, so nothing lives in the old home block.
                        unsafe { home.free() };
                    }
                    let bigger = Block::new(layout);
                    self.home.set(Some(bigger));
                    bigger
                }
            };
            self.busy.set(true);
            block
        };
        let place = block.ptr.cast::<F>();
        // SAFETY: the block fits `F`, and nothing lives in it.
        unsafe { place.write(future) };
        RecycledFuture {
            future: place,
            home: NonNull::from(self),
        }
    }

    fn release(&self, ptr: NonNull<u8>, layout: Layout) {
        match self.home.get() {
            Some(home) if home.ptr == ptr => self.busy.set(false),
            _ => {
                let own = Block {
                    ptr,
                    layout: block_layout(layout),
                };
                // SAFETY: a block of its own, allocated for this layout; its future is gone.
                unsafe { own.free() }
            }
        }
    }
}

impl Drop for Recycler {
    fn drop(&mut self) {
        let Some(home) = self.home.get() else {
            return;
        };
        if self.busy.get() {
            // A future still lives in the home block, though every future borrows the
            // recycler: its handle was forgotten (`mem::forget` is safe code), so its drop
            // will never run. It may be pinned, and pinned memory must stay valid until
            // the value in it is dropped: the block is leaked, never freed.
            return;
        }
        // SAFETY: no future lives in the home block, and it is freed here only.
        unsafe { home.free() }
    }
}

pub struct RecycledFuture<'a, T> {
    future: NonNull<dyn Future<Output = T> + 'a>,
    home: NonNull<Recycler>,
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
        let _release = Release {
            // SAFETY: "the recycler is still there": only if the caller kept it.
            home: unsafe { self.home.as_ref() },
            ptr: self.future.cast(),
            layout,
        };
        // SAFETY: dropped here only, once.
        unsafe { self.future.drop_in_place() };
    }
}

struct Release<'r> {
    home: &'r Recycler,
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.home.release(self.ptr, self.layout);
    }
}
