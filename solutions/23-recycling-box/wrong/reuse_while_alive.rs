//! Wrong: the recycler never lets go of its block. Each call writes its future into the
//! same memory, even while the previous future is still alive there: two overlapping
//! calls share one future's state, and the first call's future is lost without a drop.
//! expect-fail: overlapping_calls_each_get_their_own_block
//! replaces: solution

struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Block {
    fn new(layout: Layout) -> Block {
        let layout = Layout::from_size_align(layout.size().max(1), layout.align())
            .expect("rounding a valid layout's size up to 1 keeps it valid");
        let ptr = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        Block { ptr, layout }
    }

    fn fits(&self, layout: Layout) -> bool {
        layout.size() <= self.layout.size() && layout.align() <= self.layout.align()
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[derive(Default)]
pub struct Recycler {
    block: Cell<Option<Block>>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            block: Cell::new(None),
        }
    }

    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = match self.block.take() {
            Some(block) if block.fits(layout) => block,
            _ => Block::new(layout),
        };
        let place = block.ptr.cast::<F>();
        unsafe { place.write(future) };
        self.block.set(Some(block));
        RecycledFuture {
            future: place,
            _home: self,
        }
    }
}

pub struct RecycledFuture<'a, T> {
    future: NonNull<dyn Future<Output = T> + 'a>,
    _home: &'a Recycler,
}

impl<T> Future for RecycledFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let future = unsafe { Pin::new_unchecked(self.future.as_mut()) };
        future.poll(cx)
    }
}

impl<T> Drop for RecycledFuture<'_, T> {
    fn drop(&mut self) {
        unsafe { self.future.drop_in_place() };
    }
}
