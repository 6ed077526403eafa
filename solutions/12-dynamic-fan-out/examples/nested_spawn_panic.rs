//! What moro-local 0.4.0 does with three ways of structuring a scope, run for real.
//! The book includes this program's output (src/part3/data/moro-nested-spawn.txt);
//! scripts/test checks that the committed file still matches:
//!
//!     cargo run -q -p dynamic-fan-out-solution --example nested_spawn_panic
//!
//! 1. `scope.spawn` called from inside a spawned job (as moro's README does): panics.
//! 2. A nested `async_scope!` inside a job: works.
//! 3. `bad.await.unwrap_or_cancel(scope).await` in the scope body: works, and the
//!    sibling still running is dropped.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

use moro_local::prelude::UnwrapOrCancel;

thread_local! {
    /// Where the last panic happened, with the path cut down to the crate's folder.
    static WHERE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `fut` to the end on a fresh current-thread runtime, catching a panic.
fn run<T>(fut: impl Future<Output = T>) -> Result<T, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    panic::catch_unwind(AssertUnwindSafe(|| runtime.block_on(fut))).map_err(|payload| {
        let message = (payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(not a string)".to_string());
        let place = WHERE.with_borrow(|place| place.clone());
        format!("panicked: {message:?} at {place}")
    })
}

/// Sets a flag when dropped: shows that a job was cancelled.
struct Dropped<'a>(&'a Cell<bool>);

impl Drop for Dropped<'_> {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

fn main() {
    // Keep the default hook's backtrace text out of the report; remember the location.
    panic::set_hook(Box::new(|info| {
        let place = info.location().map_or(String::new(), |l| {
            let file = l.file().replace('\\', "/");
            let short = file.find("moro-local-").map_or(&file[..], |i| &file[i..]);
            format!("{short}:{}", l.line())
        });
        WHERE.with_borrow_mut(|w| *w = place);
    }));

    println!("moro-local 0.4.0, current-thread tokio runtime");
    println!();

    println!("1. scope.spawn called from inside a spawned job");
    // ANCHOR: nested_spawn
    let nested_spawn = run(async {
        moro_local::async_scope!(|scope| {
            let outer = scope.spawn(async {
                let inner = scope.spawn(async { 21 }); // inside a job
                inner.await * 2
            });
            outer.await
        })
        .await
    });
    // ANCHOR_END: nested_spawn
    println!("   {}", report(nested_spawn));
    println!();

    println!("2. a nested async_scope! inside a spawned job");
    let nested_scope = run(async {
        moro_local::async_scope!(|scope| {
            let outer = scope.spawn(async {
                moro_local::async_scope!(|inner| {
                    let job = inner.spawn(async { 21 }); // the inner scope's body
                    job.await * 2
                })
                .await
            });
            outer.await
        })
        .await
    });
    println!("   {}", report(nested_scope));
    println!();

    println!("3. bad.await.unwrap_or_cancel(scope).await in the scope body");
    let sibling_dropped = Cell::new(false);
    let cancelled = run(async {
        moro_local::async_scope!(|scope| -> Result<u32, String> {
            let _slow = scope.spawn(async {
                let _guard = Dropped(&sibling_dropped);
                std::future::pending::<()>().await;
            });
            let bad = scope.spawn(async { Err::<u32, String>("bad input".to_string()) });
            let value = bad.await.unwrap_or_cancel(scope).await;
            Ok(value + 1)
        })
        .await
    });
    println!("   {}", report(cancelled));
    println!(
        "   the sibling still running was dropped: {}",
        sibling_dropped.get()
    );
}

fn report<T: std::fmt::Debug>(outcome: Result<T, String>) -> String {
    match outcome {
        Ok(value) => format!("returned {value:?}"),
        Err(panicked) => panicked,
    }
}
