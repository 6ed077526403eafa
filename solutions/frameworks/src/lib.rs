//! One handler, registered with six web frameworks (examples/): which of them accept a
//! handler whose future holds an `Rc` across `.await`? Chapter 25 shows the answers.
//! scripts/check-frameworks type-checks every example (`cargo check`, no code generation):
//! the ones that accept it must compile; the ones that refuse it must fail with exactly the
//! compiler output kept in `errors/NAME.stderr`, which the chapter includes.

use std::cell::Cell;
use std::rc::Rc;

thread_local! {
    /// Per-thread state, as in thread-per-core code: no `Arc`, no lock.
    static HITS: Rc<Cell<u64>> = Rc::new(Cell::new(0));
}

// ANCHOR: handler
/// Counts a hit in this thread's state. The `Rc` is alive across the `.await`, so the
/// future this function returns is not `Send`.
pub async fn hits() -> String {
    let hits = HITS.with(Rc::clone);
    tokio::task::yield_now().await; // any awaited I/O would do
    hits.set(hits.get() + 1);
    format!("hit {} on this thread\n", hits.get())
}
// ANCHOR_END: handler
