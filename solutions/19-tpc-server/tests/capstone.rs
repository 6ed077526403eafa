//! Lab 14's service served per core (examples/capstone.rs), through the real server.

#[path = "../examples/capstone.rs"]
mod capstone;

use std::thread;

use lab_support::http::Client;
use tpc_server::{Config, Server};

#[test]
fn the_capstone_service_is_served_on_every_worker() {
    lab_support::within(
        std::time::Duration::from_secs(30),
        "the capstone server did not stop",
        || {
            let config = Config {
                workers: 2,
                ..Config::default()
            };
            let server = Server::bind("127.0.0.1:0".parse().unwrap(), config).unwrap();
            let addr = server.local_addr().unwrap();
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let stats = thread::scope(|s| {
                let running = s.spawn(move || {
                    let shutdown = async {
                        let _ = stopped.await;
                    };
                    server.run(|_| capstone::Capstone::default(), shutdown)
                });
                for _ in 0..2 {
                    let reply = Client::connect(addr).get("/users?ids=1,2,3");
                    assert_eq!(reply.status, 200);
                    assert_eq!(
                        reply.text(),
                        "1 db:1 a:1 b:1\n2 db:2 a:2 b:2\n3 db:3 a:3 b:3\n"
                    );
                }
                assert_eq!(Client::connect(addr).get("/users?ids=x").status, 404);
                drop(stop);
                running.join().unwrap().unwrap()
            });
            assert_eq!(stats.iter().map(|s| s.requests).collect::<Vec<_>>(), [2, 1]);
        },
    );
}
