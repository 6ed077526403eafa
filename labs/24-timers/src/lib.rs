//! Lab 24: the 10,000 timers.
//!
//! Timers fire a handler at their deadline, on one thread, and a `Report` records how
//! late each one fired. `fire_all` runs many one-shot timers at once; `tick` runs one
//! periodic timer. The starter hangs in `fire_all` and drifts in `tick`: find why, and
//! fix both. Task and hints: README.md next to this file.

use std::sync::Mutex;
use std::time::Duration;

use futures::future::join_all;
use tokio::time::{Instant, sleep, sleep_until};

/// One timer: call the handler with `id` at `deadline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timer {
    pub id: u32,
    pub deadline: Instant,
}

/// What a timer does when it fires. The tests' handlers keep their state in `Rc` and
/// `RefCell`, borrow from the test, and take a while (they await).
pub trait Handler {
    fn on_fire(&self, id: u32) -> impl Future<Output = ()>;
}

/// One firing: which timer, when it was due, and when its handler was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fired {
    pub id: u32,
    pub deadline: Instant,
    pub at: Instant,
}

impl Fired {
    /// How late the handler was called.
    pub fn lateness(&self) -> Duration {
        self.at.saturating_duration_since(self.deadline)
    }
}

/// Every firing, in the order the handlers were called.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub fired: Vec<Fired>,
}

impl Report {
    pub fn max_lateness(&self) -> Duration {
        self.fired
            .iter()
            .map(Fired::lateness)
            .max()
            .unwrap_or_default()
    }

    pub fn mean_lateness(&self) -> Duration {
        let total: Duration = self.fired.iter().map(Fired::lateness).sum();
        total / (self.fired.len().max(1) as u32)
    }
}

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
/// Fires every timer at its deadline: each one calls `handler.on_fire(id)` and is
/// recorded, in the order the handlers were called, the moment it fires. Handlers may
/// overlap; the function returns when every handler has finished. Every timer given fires
/// once (two identical timers fire twice), one already due fires at once, and none fires
/// before its deadline. Timers due at the same instant fire in no particular order.
pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = Mutex::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        let mut report = report.lock().unwrap();
        report.fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    report.into_inner().unwrap()
}

/// A periodic timer: calls `handler.on_fire(k)` for k = 1..=count, due at
/// `start + k * period`, where `start` is when `tick` was called. One tick at a time:
/// tick k+1 waits for tick k's handler. A tick that cannot fire on time fires as soon as
/// it can, however late, and the ticks after it keep the original schedule. A zero
/// `period` makes every tick due at the start. `count` may be `u32::MAX` (tick until the
/// caller drops the future), so the report grows as ticks fire.
pub async fn tick<H: Handler>(period: Duration, count: u32, handler: &H) -> Report {
    let start = Instant::now();
    let mut report = Report::default();
    for k in 1..=count {
        sleep(period).await;
        report.fired.push(Fired {
            id: k,
            deadline: start + period * k,
            at: Instant::now(),
        });
        handler.on_fire(k).await;
    }
    report
}
// ANCHOR_END: starter
