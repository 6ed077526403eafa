//! Output capture for the book's "What does this print?" questions. `build.rs` hands
//! rustdoc each such program with `println!`/`print!` redefined to write here, and a
//! `main` that runs the program and compares what it printed with the answer. Each doc
//! test runs in a process of its own, so one buffer per process is enough; a lock keeps
//! threads the program starts writing whole lines.
#![expect(
    clippy::disallowed_types,
    reason = "a question's program may print from threads it starts (chapter 17's workers)"
)]

use std::sync::Mutex;

static OUTPUT: Mutex<String> = Mutex::new(String::new());

fn buffer() -> std::sync::MutexGuard<'static, String> {
    OUTPUT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What `print!` writes.
pub fn print(text: String) {
    buffer().push_str(&text);
}

/// What `println!` writes.
pub fn println(text: String) {
    let mut out = buffer();
    out.push_str(&text);
    out.push('\n');
}

/// Runs the question's program and fails unless it printed exactly `expected`.
pub fn check(program: impl FnOnce(), expected: &str) {
    buffer().clear();
    program();
    let got = std::mem::take(&mut *buffer());
    assert!(
        got == expected,
        "the question's answer says it prints\n{expected}\nbut it printed\n{got}"
    );
}
