//! Lab 01: a future by hand.
//!
//! `Countdown::new(n)` is a future that answers `Poll::Pending` `n` times and then
//! `Poll::Ready(())`. It waits for nothing in particular, so each time it answers
//! `Pending` it must arrange to be polled again by itself. Write its `poll`.
//! Task and hints: README.md next to this file.

use std::pin::Pin;
use std::task::{Context, Poll};

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
/// A future that is `Pending` `n` times, then `Ready(())`.
pub struct Countdown {
    /// How many more times `poll` answers `Pending`.
    remaining: u32,
}

impl Countdown {
    pub fn new(n: u32) -> Self {
        Countdown { remaining: n }
    }
}

impl Future for Countdown {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // `Countdown` is `Unpin`, so `self.remaining` reads and writes the field
        // through the `Pin` as if it were a plain `&mut Countdown`.
        let _ = (self.remaining, cx);
        todo!("answer Pending `remaining` times, each time asking to be polled again")
    }
}
// ANCHOR_END: starter
