//! xitca-web accepts the handler: `handler_service` asks for a future with no `Send`
//! bound; only the app (the service factory) must be `Send + Sync`.

use frameworks::hits;
use xitca_web::{App, handler::handler_service, route::get};

// ANCHOR: main
fn main() -> std::io::Result<()> {
    App::new()
        .at("/", get(handler_service(hits)))
        .serve()
        .bind("127.0.0.1:0")?
        .run()
        .wait()
}
// ANCHOR_END: main
