//! hyper accepts the handler: HTTP/1 `serve_connection` has no `Send` bound, so each
//! connection can be a local task on a `LocalRuntime` (chapter 16).

use std::convert::Infallible;

use bytes::Bytes;
use frameworks::hits;
use http_body_util::Full;
use hyper::{Request, Response, body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

// ANCHOR: main
async fn serve(_request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from(hits().await))))
}

#[tokio::main(flavor = "local")]
async fn main() -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::task::spawn_local(async move {
            let connection =
                http1::Builder::new().serve_connection(TokioIo::new(stream), service_fn(serve));
            if let Err(e) = connection.await {
                eprintln!("connection: {e}");
            }
        });
    }
}
// ANCHOR_END: main
