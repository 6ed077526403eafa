//! The solution's other way of handing out connections (Linux only): one SO_REUSEPORT
//! listener per worker, and the kernel chooses. Not part of the lab: only Linux
//! balances such listeners (macOS gives one listener every connection, Windows has no
//! SO_REUSEPORT), so the lab's portable server deals connections itself.
#![cfg(target_os = "linux")]

#[path = "../../../labs/19-tpc-server/tests/common/mod.rs"]
mod common;

use common::{Probe, config, connect, serve, watched};
use tpc_server::Config;

fn reuse_port(workers: usize) -> Config {
    Config {
        reuse_port: true,
        ..config(workers)
    }
}

/// Linux picks a listener by a hash of the connection's addresses and ports: not round
/// robin, uneven for a few connections, but 64 connections all landing on one of two
/// workers would be a 1 in 2^63 event.
#[test]
fn the_kernel_spreads_connections_over_the_workers() {
    watched(|| {
        let probe = Probe::default();
        let stats = serve(reuse_port(2), &probe, |addr, _| {
            let mut seen = [0; 2];
            let mut clients = Vec::new(); // all open at once
            for _ in 0..64 {
                let mut client = connect(addr);
                let reply = client.get("/");
                let worker: usize = reply.header("x-worker").unwrap().parse().unwrap();
                seen[worker] += 1;
                clients.push(client);
            }
            assert!(
                seen.iter().all(|&n| n > 0),
                "both workers get connections: {seen:?}"
            );
        });
        assert_eq!(stats.iter().map(|s| s.connections).sum::<u64>(), 64);
        assert_eq!(stats.iter().map(|s| s.requests).sum::<u64>(), 64);
    });
}

/// Shutdown works the same: idle connections close, the request in flight finishes.
#[test]
fn reuse_port_shuts_down_gracefully() {
    watched(|| {
        let probe = Probe::default();
        serve(reuse_port(1), &probe, |addr, stop| {
            let mut idle = connect(addr);
            assert_eq!(idle.get("/").status, 200);
            let mut busy = connect(addr);
            busy.send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            assert_eq!(probe.started(), (0, "/wait"));
            stop.now();
            idle.wait_closed()
                .expect("idle connections close at shutdown");
            probe.release(1);
            assert_eq!(busy.read_reply().unwrap().text(), "released");
        });
    });
}
