//! Nothing here: this crate exists for `tests/ui.rs`, which compiles every
//! `tests/ui/*.rs` program with trybuild and compares rustc's errors with the
//! committed `.stderr` next to it. The book includes those `.stderr` files.
