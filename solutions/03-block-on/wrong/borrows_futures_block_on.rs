//! Wrong: hands the future to the futures crate's `block_on`. It would pass every test,
//! so the lab does not depend on futures (only its tests do), and this does not compile.
//! expect-error: E0433
//! replaces: block_on

pub fn block_on<F: Future>(fut: F) -> F::Output {
    futures::executor::block_on(fut)
}
