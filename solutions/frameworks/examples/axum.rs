//! axum refuses the handler: its `Handler` trait wants a `Send` future, so this example
//! does not compile (errors/axum.stderr is the compiler's answer).

use axum::{Router, routing::get};
use frameworks::hits;

// ANCHOR: main
#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let app: Router = Router::new().route("/", get(hits));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    axum::serve(listener, app).await
}
// ANCHOR_END: main
