//! The usual way, for comparison: one tokio work-stealing runtime, a `tokio::spawn`ed
//! task per connection, and a service that must be `Send`. Same replies and the same
//! hyper limits as `examples/serve.rs`, but no timeouts at all, as in the servers of Evan
//! Schwartz's benchmark (so any difference in speed is not lab 19's timeouts' fault):
//!
//! ```text
//! cargo run --release -p tpc-server-solution --example work_stealing -- --port 3001 --workers 2
//! ```
#![expect(
    clippy::disallowed_methods,
    reason = "the contrast: this is the work-stealing server lab 19 is measured against"
)]

use std::convert::Infallible;
use std::net::SocketAddr;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

fn main() -> std::io::Result<()> {
    let mut port: u16 = 3001;
    let mut workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--port" => port = value().parse().expect("--port needs a number"),
            "--workers" => workers = value().parse().expect("--workers needs a number"),
            other => panic!("unknown option {other}"),
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let listener = tokio::net::TcpListener::bind(addr).await?;
        println!("work-stealing: listening on http://{addr} with {workers} workers");
        let greeting = Bytes::from("hello from a work-stealing runtime\n");
        let mut http = http1::Builder::new();
        http.max_header_size(64 << 10);
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            let (http, greeting) = (http.clone(), greeting.clone());
            tokio::spawn(async move {
                let service = service_fn(|request: Request<Incoming>| {
                    let greeting = greeting.clone();
                    async move {
                        let mut reply = match request.uri().path() {
                            "/" => Response::new(Full::new(greeting)),
                            _ => Response::new(Full::new(Bytes::from("not found\n"))),
                        };
                        if request.uri().path() != "/" {
                            *reply.status_mut() = StatusCode::NOT_FOUND;
                        }
                        Ok::<_, Infallible>(reply)
                    }
                });
                let _ = http.serve_connection(TokioIo::new(stream), service).await;
            });
        }
    })
}
