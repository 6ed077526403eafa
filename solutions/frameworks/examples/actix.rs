//! actix-web accepts the handler: each worker thread runs its own single-threaded runtime,
//! and only the app factory (the closure given to `HttpServer::new`) must be `Send`.

use actix_web::{App, HttpServer, web};
use frameworks::hits;

// ANCHOR: main
#[actix_web::main]
async fn main() -> std::io::Result<()> {
    HttpServer::new(|| App::new().route("/", web::get().to(hits)))
        .bind(("127.0.0.1", 0))?
        .run()
        .await
}
// ANCHOR_END: main
