//! The payoff: lab 14's service, `serve(&ctx, &ids)`, served on every core by lab 19's
//! server. Its future is neither `Send` nor `'static`: it borrows the context, and the
//! clients count in `Cell`s. Each worker builds its own context and keeps it.
//!
//! ```text
//! cargo run --release -p tpc-server-solution --example capstone -- --port 3000 --workers 2
//! curl 'http://127.0.0.1:3000/users?ids=1,2,3'
//! ```
//!
//! The backends are stand-ins that answer after a few milliseconds; `tests/capstone.rs`
//! runs this handler against the real server.
use std::cell::Cell;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use hyper::{Request, StatusCode};
use service::{Client, Context, ServiceError, serve};
use tpc_server::{Body, Config, Handler, Reply, Server, reply};

// ANCHOR: backend
/// A stand-in backend: answers "name:id" after `latency`, and counts its calls in a
/// `Cell` (it lives on one worker, so a plain cell will do).
pub struct Backend {
    name: &'static str,
    latency: Duration,
    calls: Cell<u64>,
}

impl Client for Backend {
    async fn call(&self, id: u32) -> Result<String, ServiceError> {
        self.calls.set(self.calls.get() + 1);
        tokio::time::sleep(self.latency).await;
        Ok(format!("{}:{id}", self.name))
    }
}
// ANCHOR_END: backend

// ANCHOR: handler
/// One per worker: lab 14's context, owned by the worker, lent to every request.
pub struct Capstone {
    ctx: Context<Backend>,
}

impl Default for Capstone {
    fn default() -> Capstone {
        let backend = |name, ms| Backend {
            name,
            latency: Duration::from_millis(ms),
            calls: Cell::new(0),
        };
        Capstone {
            ctx: Context {
                db: backend("db", 2),
                service_a: backend("a", 3),
                service_b: backend("b", 2),
                service_c: backend("c", 1),
            },
        }
    }
}

impl Handler for Capstone {
    async fn call(&self, request: Request<Body>) -> Reply {
        // GET /users?ids=1,2,3
        let ids = match (request.uri().path(), request.uri().query()) {
            ("/users", Some(query)) => query.strip_prefix("ids=").and_then(|ids| {
                ids.split(',')
                    .map(str::parse)
                    .collect::<Result<Vec<u32>, _>>()
                    .ok()
            }),
            _ => None,
        };
        let Some(ids) = ids else {
            return reply(StatusCode::NOT_FOUND, "try GET /users?ids=1,2,3\n");
        };
        // The same call as in lab 14: borrowed context, borrowed ids, no Arc.
        match serve(&self.ctx, &ids).await {
            Ok(responses) => {
                let mut text = String::new();
                for r in responses {
                    let _ = writeln!(text, "{} {} {} {}", r.id, r.user, r.a, r.b);
                }
                reply(StatusCode::OK, text)
            }
            Err(error) => reply(StatusCode::BAD_GATEWAY, format!("{error}\n")),
        }
    }
}
// ANCHOR_END: handler

#[allow(
    dead_code,
    reason = "tests/capstone.rs includes this file for its handler"
)]
fn main() -> std::io::Result<()> {
    let mut port: u16 = 3000;
    let mut config = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--port" => port = value().parse().expect("--port needs a number"),
            "--workers" => config.workers = value().parse().expect("--workers needs a number"),
            other => panic!("unknown option {other}"),
        }
    }
    let server = Server::bind(SocketAddr::from(([127, 0, 0, 1], port)), config)?;
    println!(
        "the capstone's service on http://{}/users?ids=1,2,3 with {} workers; Ctrl-C stops",
        server.local_addr()?,
        config.workers
    );
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let stats = server.run(|_worker| Capstone::default(), ctrl_c)?;
    for (worker, stats) in stats.iter().enumerate() {
        println!("worker {worker}: {stats:?}");
    }
    Ok(())
}
