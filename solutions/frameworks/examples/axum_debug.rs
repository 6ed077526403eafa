//! The message axum's own error suggests: `#[axum::debug_handler]` checks a handler on its
//! own and names the value that is not `Send` (errors/axum_debug.stderr).

// ANCHOR: main
#[axum::debug_handler]
async fn hits() -> String {
    frameworks::hits().await
}
// ANCHOR_END: main

fn main() {}
