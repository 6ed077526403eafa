//! Part IV as one program: lab 19's thread-per-core server, with routes backed by lab
//! 20's sharded store.
//!
//! ```text
//! cargo run --release -p sharded-store-solution --example kv_server -- --port 3000
//! curl -i -X PUT --data 'hello' http://127.0.0.1:3000/kv/greeting
//! curl -i http://127.0.0.1:3000/kv/greeting
//! ```
//!
//! `PUT /kv/{key}` stores the body (201 if the key is new, 200 if it replaced a value);
//! `GET /kv/{key}` answers it (404 if there is none). Every worker serves connections on
//! its own `LocalRuntime`; every key lives on one shard, in a plain `HashMap` on that
//! shard's thread. A handler asks the key's owner with a message and awaits the answer.
//! No `Arc`, no `Mutex`, and no future here needs to be `Send`.
//!
//! Bad input never reaches a shard: a key that is empty, longer than `MAX_KEY` bytes,
//! more than one path segment, badly %-escaped or not UTF-8 gets 400; a value that is
//! missing or not UTF-8 gets 400, one over `MAX_VALUE` bytes 413. A shard whose queue
//! is full answers 503 at once. Options: `--port P` (default 3000), `--workers N`
//! (default: one per core; as many shards). Ctrl-C stops it: the server finishes its
//! requests, then the shards drain and stop.
use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;

use hyper::header::{ALLOW, HeaderValue, RETRY_AFTER};
use hyper::{Method, Request, StatusCode};
use sharded_store::{Client, Partition, StoreError, run_with};
use tpc_server::{Body, Config, Handler, Reply, Server, WorkerStats, reply};

/// The longest key, in bytes once %-escapes are decoded.
pub const MAX_KEY: usize = 256;
/// The longest value, in bytes.
pub const MAX_VALUE: usize = 64 << 10;

// ANCHOR: handler
/// One per worker, built on the worker's thread. It borrows the store's client, which
/// every worker shares: the client holds only the shards' queue senders.
pub struct Kv<'c> {
    pub client: &'c Client,
}

impl Handler for Kv<'_> {
    async fn call(&self, request: Request<Body>) -> Reply {
        let (head, body) = request.into_parts();
        let Some(raw) = head.uri.path().strip_prefix("/kv/") else {
            return reply(StatusCode::NOT_FOUND, "not found: try /kv/{key}\n");
        };
        // Everything is checked before anything is sent to a shard.
        let key = match key(raw) {
            Ok(key) => key,
            Err(why) => return reply(StatusCode::BAD_REQUEST, why),
        };
        match head.method {
            Method::GET => match self.client.get(&key).await {
                Ok(Some(value)) => reply(StatusCode::OK, value),
                Ok(None) => reply(StatusCode::NOT_FOUND, "no such key\n"),
                Err(error) => failed(error),
            },
            Method::PUT => {
                let bytes = match body.bytes().await {
                    Ok(bytes) => bytes,                 // at most Config::max_body = MAX_VALUE
                    Err(error) => return error.reply(), // 413, 408 or 400
                };
                if bytes.is_empty() {
                    return reply(StatusCode::BAD_REQUEST, "missing body: PUT needs a value\n");
                }
                let Ok(value) = std::str::from_utf8(&bytes) else {
                    return reply(StatusCode::BAD_REQUEST, "the value is not UTF-8\n");
                };
                match self.client.put(&key, value).await {
                    Ok(None) => reply(StatusCode::CREATED, "created\n"),
                    Ok(Some(_)) => reply(StatusCode::OK, "replaced\n"),
                    Err(error) => failed(error),
                }
            }
            _ => {
                let mut answer = reply(StatusCode::METHOD_NOT_ALLOWED, "GET or PUT\n");
                answer
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("GET, PUT"));
                answer
            }
        }
    }
}

/// The key in a path segment: %-escapes decoded, then checked. The error is the reply's
/// text.
fn key(raw: &str) -> Result<String, String> {
    if raw.is_empty() {
        return Err("empty key\n".into());
    }
    if raw.contains('/') {
        return Err("a key is one path segment\n".into());
    }
    let mut bytes = Vec::with_capacity(raw.len());
    let mut rest = raw.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = tail.get(..2).and_then(|h| std::str::from_utf8(h).ok());
            let Some(decoded) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) else {
                return Err("bad %-escape in the key\n".into());
            };
            bytes.push(decoded);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
        if bytes.len() > MAX_KEY {
            return Err(format!("key longer than {MAX_KEY} bytes\n"));
        }
    }
    String::from_utf8(bytes).map_err(|_| "the key is not UTF-8\n".into())
}

/// A call the store could not serve.
fn failed(error: StoreError) -> Reply {
    match error {
        StoreError::Busy(_) => {
            let mut answer = reply(StatusCode::SERVICE_UNAVAILABLE, format!("{error}; retry\n"));
            answer
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from_static("1"));
            answer
        }
        StoreError::Down(_) | StoreError::Panicked(_) => {
            reply(StatusCode::INTERNAL_SERVER_ERROR, format!("{error}\n"))
        }
    }
}
// ANCHOR_END: handler

// ANCHOR: serve
/// Serves until `shutdown` completes: the store's shards (one partition each, `make(shard)`)
/// and the server's workers, on their own threads, all scoped. The order of shutdown is
/// the order of the scopes: the server stops taking connections and finishes its
/// requests, its workers drop their borrows of the client, then the shards drain their
/// queues, stop and are joined.
pub fn serve<S: Partition>(
    server: Server,
    store: &sharded_store::Config,
    make: impl Fn(usize) -> S + Sync,
    shutdown: impl Future<Output = ()>,
) -> io::Result<Vec<WorkerStats>> {
    let no_app = |_| async {}; // the shards only serve: the server is the application
    let run = run_with(store, make, no_app, |client| {
        server.run(|_worker| Kv { client: &client }, shutdown)
    });
    match run {
        Ok((_apps, served)) => served,
        Err(error) => Err(io::Error::other(error)),
    }
}
// ANCHOR_END: serve

fn main() -> io::Result<()> {
    let mut port: u16 = 3000;
    let mut config = Config {
        max_body: MAX_VALUE,
        ..Config::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--port" => port = value().parse().expect("--port needs a number"),
            "--workers" => config.workers = value().parse().expect("--workers needs a number"),
            other => panic!("unknown option {other}; see the comment at the top of kv_server.rs"),
        }
    }
    let server = Server::bind(SocketAddr::from(([127, 0, 0, 1], port)), config)?;
    println!(
        "listening on http://{} with {} workers and {} shards; Ctrl-C stops",
        server.local_addr()?,
        config.workers,
        config.workers
    );
    let store = sharded_store::Config {
        shards: config.workers,
        queue: 1024,
    };
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let stats = serve(server, &store, |_| HashMap::<String, String>::new(), ctrl_c)?;
    for (worker, stats) in stats.iter().enumerate() {
        println!("worker {worker}: {stats:?}");
    }
    Ok(())
}
