//! Wrong: `serve` no longer asks for `Send`, but the trait still promises that every
//! `load` future is `Send`. The tests' backend keeps an `Rc` across its `.await`, so its
//! `load` cannot keep that promise, though nothing here needs it any more.
//! expect-error: future cannot be sent between threads safely
//! replaces: backend

pub trait Backend {
    fn load(&self, key: u32) -> impl Future<Output = String> + Send;
}
