//! ntex accepts the handler: its `Handler` trait has an `async fn call` with no `Send`
//! bound, and only the app factory must be `Send`.

use frameworks::hits;
use ntex::{SharedCfg, web};

// ANCHOR: main
#[ntex::main]
async fn main() -> std::io::Result<()> {
    web::server(async |_| web::App::new().service(web::resource("/").to(hits)))
        .bind("127.0.0.1:0", SharedCfg::default())?
        .run()
        .await
}
// ANCHOR_END: main
