//! poem refuses the handler: an `Endpoint` must be `Send + Sync` and return a `Send`
//! future, so this example does not compile (errors/poem.stderr is the compiler's answer).

use poem::{Route, Server, get, handler, listener::TcpListener};

// ANCHOR: main
#[handler]
async fn hits() -> String {
    frameworks::hits().await
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let app = Route::new().at("/", get(hits));
    Server::new(TcpListener::bind("127.0.0.1:0")).run(app).await
}
// ANCHOR_END: main
