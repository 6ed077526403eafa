//! Wrong: the block is a bare pointer and layout, freed by hand wherever the code
//! remembers to: when a misfit block is replaced, and when two blocks come back at once.
//! Nobody frees the one still idle when the recycler itself goes away.
//! expect-fail: nothing_leaks
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

    fn free(self) {
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[derive(Default)]
pub struct Recycler {
    idle: Cell<Option<Block>>,
}

impl Recycler {
    pub const fn new() -> Self {
        Recycler {
            idle: Cell::new(None),
        }
    }

    pub fn recycle<'a, F: Future + 'a>(&'a self, future: F) -> RecycledFuture<'a, F::Output> {
        let layout = Layout::new::<F>();
        let block = match self.idle.take() {
            Some(block) if block.fits(layout) => block,
            Some(misfit) => {
                misfit.free();
                Block::new(layout)
            }
            None => Block::new(layout),
        };
        let place = block.ptr.cast::<F>();
        unsafe { place.write(future) };
        RecycledFuture {
            future: place,
            block: Some(block),
            home: self,
        }
    }

    fn give_back(&self, block: Block) {
        match self.idle.take() {
            Some(idle) if idle.layout.size() >= block.layout.size() => {
                block.free();
                self.idle.set(Some(idle));
            }
            Some(idle) => {
                idle.free();
                self.idle.set(Some(block));
            }
            None => self.idle.set(Some(block)),
        }
    }
}

pub struct RecycledFuture<'a, T> {
    future: NonNull<dyn Future<Output = T> + 'a>,
    block: Option<Block>,
    home: &'a Recycler,
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
        if let Some(block) = self.block.take() {
            self.home.give_back(block);
        }
    }
}
