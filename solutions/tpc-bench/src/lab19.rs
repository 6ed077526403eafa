//! Lab 19's server, exactly as the book teaches it (the `tpc-server-solution` crate),
//! serving the benchmark's work: an acceptor dealing connections round-robin to workers,
//! or, on Linux with `reuse_port`, one `SO_REUSEPORT` listener per worker. Unlike the
//! bare variants in `servers.rs`, it pays for what a real server needs: hyper's header
//! timer, a write timeout, a connection limit and per-worker stats.

use std::net::SocketAddr;

use hyper::body::Bytes;
use hyper::{Request, StatusCode};
use tpc_server::{Body, Config, Handler, Reply, Server, reply};

use crate::work::{HELLO, Work, do_work};

struct Bench(Work);

impl Handler for Bench {
    async fn call(&self, _request: Request<Body>) -> Reply {
        do_work(self.0).await;
        reply(StatusCode::OK, Bytes::from_static(HELLO))
    }
}

/// Binds 127.0.0.1 on a port the kernel picks and returns it with a function that serves
/// until the process exits (the harness closes standard input; `main` then exits).
pub fn bind(threads: usize, reuse_port: bool) -> (u16, impl FnOnce(Work)) {
    let config = Config {
        workers: threads,
        #[cfg(target_os = "linux")]
        reuse_port,
        ..Config::default()
    };
    #[cfg(not(target_os = "linux"))]
    let _ = reuse_port;
    let server =
        Server::bind(SocketAddr::from(([127, 0, 0, 1], 0)), config).expect("bind 127.0.0.1");
    let port = server.local_addr().expect("an address").port();
    let serve = move |work: Work| {
        server
            .run(|_worker| Bench(work), std::future::pending())
            .expect("lab 19's server");
    };
    (port, serve)
}
