//! Lab 19's server as a program:
//!
//! ```text
//! cargo run --release -p tpc-server-solution --example serve -- --port 3000 --workers 2
//! curl -i http://127.0.0.1:3000/
//! ```
//!
//! `GET /` answers "hello from worker N"; `GET /hits` counts this worker's requests in an
//! `Rc<Cell<u64>>` held across an `.await`. Ctrl-C stops it gracefully and prints what
//! each worker did. Options: `--port P` (default 3000), `--workers N` (default: one per
//! core), `--reuse-port` (Linux: one SO_REUSEPORT listener per worker).
use std::cell::Cell;
use std::net::SocketAddr;
use std::rc::Rc;

use hyper::body::Bytes;
use hyper::{Request, StatusCode};
use tpc_server::{Body, Config, Handler, Reply, Server, reply};

// ANCHOR: hello
/// One per worker, built on the worker's thread.
struct Hello {
    /// "hello from worker N", made once: every reply shares these bytes.
    greeting: Bytes,
    hits: Rc<Cell<u64>>,
}

impl Handler for Hello {
    async fn call(&self, request: Request<Body>) -> Reply {
        match request.uri().path() {
            "/" => reply(StatusCode::OK, self.greeting.clone()),
            "/hits" => {
                let hits = Rc::clone(&self.hits);
                tokio::task::yield_now().await; // an Rc across .await: fine on one thread
                hits.set(hits.get() + 1);
                reply(StatusCode::OK, format!("{}\n", hits.get()))
            }
            _ => reply(StatusCode::NOT_FOUND, "not found\n"),
        }
    }
}
// ANCHOR_END: hello

fn main() -> std::io::Result<()> {
    let mut port: u16 = 3000;
    let mut config = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--port" => port = value().parse().expect("--port needs a number"),
            "--workers" => config.workers = value().parse().expect("--workers needs a number"),
            #[cfg(target_os = "linux")]
            "--reuse-port" => config.reuse_port = true,
            other => panic!("unknown option {other}; see the comment at the top of serve.rs"),
        }
    }
    // ANCHOR: main
    let server = Server::bind(SocketAddr::from(([127, 0, 0, 1], port)), config)?;
    println!(
        "listening on http://{} with {} workers; Ctrl-C stops",
        server.local_addr()?,
        config.workers
    );
    let hello = |worker| Hello {
        greeting: Bytes::from(format!("hello from worker {worker}\n")),
        hits: Rc::default(),
    };
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let stats = server.run(hello, ctrl_c)?;
    // ANCHOR_END: main
    for (worker, stats) in stats.iter().enumerate() {
        println!("worker {worker}: {stats:?}");
    }
    Ok(())
}
