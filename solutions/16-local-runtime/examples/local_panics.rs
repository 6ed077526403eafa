//! Where tokio 1.54.1's `spawn_local` works, and what a `RefCell` borrow held across an
//! `.await` does, run for real. Chapter 16 includes this program's output
//! (src/part4/data/local-panics.txt); scripts/test checks that the committed file still
//! matches:
//!
//!     cargo run -q -p local-runtime-solution --example local_panics
//!
//! 1. `spawn_local` on a current-thread runtime, no `LocalSet`: panics.
//! 2. The same inside `LocalSet::run_until`: works.
//! 3. `spawn_local` on a `LocalRuntime`: works.
//! 4. `spawn_local` from another thread that entered the `LocalRuntime`'s handle: panics.
//! 5. Two local tasks share an `Rc<RefCell<u32>>`; one holds `borrow_mut()` across an
//!    `.await`: the other panics.
//! 6. The same with the borrow ended before the `.await`: both run.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use tokio::runtime::{Builder, LocalRuntime};
use tokio::task::{LocalSet, spawn_local, yield_now};

thread_local! {
    /// Where the last panic on this thread happened: file and line.
    static WHERE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f`, catching a panic; reports the value or the panic's message and place.
fn report<T: std::fmt::Debug>(f: impl FnOnce() -> T) -> String {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => format!("returned {value:?}"),
        Err(payload) => {
            let message = (payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(not a string)".to_string());
            let place = WHERE.with_borrow(|place| place.clone());
            format!("panicked at {place}: {message:?}")
        }
    }
}

fn current_thread() -> tokio::runtime::Runtime {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime")
}

/// A local task's panic comes back through its `JoinHandle`; raise it again here.
async fn join<T>(task: tokio::task::JoinHandle<T>) -> T {
    task.await
        .unwrap_or_else(|error| panic::resume_unwind(error.into_panic()))
}

#[expect(
    clippy::await_holding_refcell_ref,
    reason = "case 5 holds a borrow across an .await on purpose, to show the panic"
)]
fn main() {
    // Keep the default hook's text out of the report; remember the place instead.
    panic::set_hook(Box::new(|info| {
        let place = info.location().map_or(String::new(), |l| {
            let file = l.file().replace('\\', "/");
            // tokio's own files from the crate's folder on, ours by name.
            let name = match file.find("tokio-") {
                Some(at) => &file[at..],
                None => file.rsplit('/').next().unwrap_or(&file),
            };
            format!("{name}:{}", l.line())
        });
        WHERE.with_borrow_mut(|w| *w = place);
    }));

    println!("tokio 1.54.1");
    println!();

    println!("1. spawn_local on a current-thread runtime, without a LocalSet");
    let runtime = current_thread();
    let outcome = report(|| runtime.block_on(async { join(spawn_local(async { 42 })).await }));
    println!("   {outcome}");

    println!("2. spawn_local inside LocalSet::run_until, same runtime");
    let local = LocalSet::new();
    let outcome = report(|| {
        runtime.block_on(local.run_until(async { join(spawn_local(async { 42 })).await }))
    });
    println!("   {outcome}");

    println!("3. spawn_local on a LocalRuntime");
    let runtime = LocalRuntime::new().expect("a local runtime");
    let outcome = report(|| runtime.block_on(async { join(spawn_local(async { 42 })).await }));
    println!("   {outcome}");

    println!("4. spawn_local from another thread, through the LocalRuntime's handle");
    let handle = runtime.handle().clone();
    let outcome = std::thread::spawn(move || {
        report(|| {
            let _inside = handle.enter();
            drop(spawn_local(async { 42 }));
        })
    })
    .join()
    .expect("the reporting thread");
    println!("   {outcome}");

    println!("5. two local tasks; the first holds borrow_mut() across an .await");
    let outcome = report(|| {
        runtime.block_on(async {
            // ANCHOR: held_borrow
            let count = Rc::new(RefCell::new(0));
            let first = spawn_local({
                let count = Rc::clone(&count);
                async move {
                    let mut n = count.borrow_mut();
                    yield_now().await; // the borrow is still alive here
                    *n += 1;
                }
            });
            let second = spawn_local({
                let count = Rc::clone(&count);
                async move { *count.borrow_mut() += 1 } // runs while `first` waits
            });
            join(first).await;
            join(second).await;
            // ANCHOR_END: held_borrow
            count.take()
        })
    });
    println!("   {outcome}");

    println!("6. the same two tasks; the borrow ends before the .await");
    let outcome = report(|| {
        runtime.block_on(async {
            // ANCHOR: scoped_borrow
            let count = Rc::new(RefCell::new(0));
            let first = spawn_local({
                let count = Rc::clone(&count);
                async move {
                    let before = *count.borrow(); // a borrow for one statement
                    yield_now().await;
                    *count.borrow_mut() += 1; // and another, after the wait
                    before
                }
            });
            let second = spawn_local({
                let count = Rc::clone(&count);
                async move { *count.borrow_mut() += 1 }
            });
            join(first).await;
            join(second).await;
            // ANCHOR_END: scoped_borrow
            count.take()
        })
    });
    println!("   {outcome}");
}
