//! Helpers shared by every lab's tests, written once (DESIGN.md, lab contract point 5 and 7).
//! labs/NN-slug and solutions/NN-slug both use this crate as a dev-dependency.
//!
//! - [`waker`]: a waker that counts its wake-ups, a task that polls by hand with one,
//!   and a relay that catches a future returning `Pending` without arranging a wake-up;
//! - [`gate`]: a future the test finishes by hand, which wakes the task that polled it;
//! - [`gauge`]: how many things are in flight now, at most, and in all (drop guards);
//! - [`os_thread`]: whether a thread is asleep, and how often it went to sleep (Linux's
//!   `/proc`), to tell a thread that parks from one that spins or naps;
//! - [`alloc`]: a counting global allocator, per thread (allocations and deallocations);
//! - [`byte_alloc`]: a counting global allocator that counts bytes too, per thread: live
//!   bytes catch a `Vec` or a map that grows without end inside one block;
//! - [`checked_alloc`]: a global allocator that counts too, and catches what the system
//!   allocator hides: a block freed with the wrong layout or twice, a stale pointer
//!   (freed blocks are poisoned and held back);
//! - [`compile_fail`]: the errors of a small program compiled against the lab's library,
//!   for tests that an API refuses a misuse;
//! - [`poll`]: polling by hand with no runtime (for allocation counts and Miri), and the
//!   smallest await point, [`yield_once`];
//! - [`watchdog`]: turns a hang into a failing test with a message that names the cause,
//!   by wall clock (a thread, with a paused current-thread or local runtime; one that
//!   never waits on the OS fails as soon as its thread blocks) or by a
//!   poll budget (deterministic); `checked` wraps a call into the learner's code in a
//!   poll budget and a must-wake check at once;
//! - [`tripwire`]: a wall-clock watchdog the test can also trip early, from any thread,
//!   with a message (for a harness stuck where it cannot panic, such as a thread scope);
//! - [`timeline`]: what the executor sees, recorded while the runner asks for it: every
//!   poll of a recorded future and how it answered, every clone, wake-up and drop of
//!   lab-support's wakers, on which thread; written per test for `cargo labs check`,
//!   `watch` and `trace`, with the known mistakes named;
//! - [`http`]: a blocking HTTP/1.1 client for servers on 127.0.0.1, with time limits on
//!   every read and write, that sends good requests and bad bytes alike.
//!
//! Tests need an `Arc` to build a `std::task::Wake` waker; that is std's API, so this
//! crate, not the labs, holds it.
#![allow(
    clippy::disallowed_types,
    reason = "std::task::Wake is implemented on Arc<Self>; only test helpers build wakers"
)]

pub mod alloc;
pub mod byte_alloc;
pub mod checked_alloc;
pub mod compile_fail;
pub mod gate;
pub mod gauge;
pub mod http;
pub mod os_thread;
pub mod poll;
pub mod timeline;
pub mod tripwire;
pub mod waker;
pub mod watchdog;

pub use gate::Gate;
pub use gauge::Gauge;
pub use os_thread::OsThread;
pub use poll::{poll_once, poll_to_end, yield_once};
pub use timeline::{Recording, Traced, traced};
pub use tripwire::{Tripwire, within_tripwire};
pub use waker::{CountingWaker, MustWake, TestTask, counting_waker};
pub use watchdog::{PollBudget, checked, paused, paused_local, within, within_unblocked};
