//! Drop guards that count what is in flight.

use std::cell::Cell;

/// Counts things in flight: now, the most at once, and how many ever entered. Enter
/// with [`Gauge::enter`]; the guard leaves when dropped, finished or cancelled, so a
/// gauge back at zero proves nothing was leaked or left running.
#[derive(Default, Debug)]
pub struct Gauge {
    now: Cell<usize>,
    peak: Cell<usize>,
    total: Cell<usize>,
}

impl Gauge {
    pub fn new() -> Self {
        Self::default()
    }

    /// One more in flight until the returned guard is dropped.
    pub fn enter(&self) -> Entered<'_> {
        self.now.set(self.now.get() + 1);
        self.peak.set(self.peak.get().max(self.now.get()));
        self.total.set(self.total.get() + 1);
        Entered(self)
    }

    /// In flight right now.
    pub fn now(&self) -> usize {
        self.now.get()
    }

    /// The most in flight at any one time.
    pub fn peak(&self) -> usize {
        self.peak.get()
    }

    /// How many ever entered.
    pub fn total(&self) -> usize {
        self.total.get()
    }
}

/// Held while one thing is in flight; see [`Gauge::enter`].
#[must_use = "the gauge counts this as in flight until the guard is dropped"]
pub struct Entered<'a>(&'a Gauge);

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        self.0.now.set(self.0.now.get() - 1);
    }
}
