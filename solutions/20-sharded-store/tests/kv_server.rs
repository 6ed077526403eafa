//! Chapter 20's server (examples/kv_server.rs): lab 19's server with routes backed by lab
//! 20's store. Good requests reach the key's owner; bad input gets 400/405/413 and never
//! reaches a shard; shutdown stops the server, then the shards. Real sockets on
//! 127.0.0.1, port 0; every test body runs under a wall-clock watchdog.
#![allow(
    clippy::disallowed_types,
    reason = "the probe counts calls from every shard's thread: the test's lock, not the store's"
)]

#[path = "../examples/kv_server.rs"]
#[allow(dead_code, reason = "the example's main is not used here")]
mod kv;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Duration;

use lab_support::http::{Client, Reply};
use sharded_store::{Partition, shard_for};
use tpc_server::{Config, Server};

/// Counts every call that reaches a shard, and checks it reached the key's owner.
struct Counted<'t> {
    shard: usize,
    shards: usize,
    map: HashMap<String, String>,
    calls: &'t AtomicUsize,
    strays: &'t Mutex<Vec<String>>,
}

impl Counted<'_> {
    fn arrive(&self, key: &str) {
        self.calls.fetch_add(1, SeqCst);
        if shard_for(key, self.shards) != self.shard {
            self.strays.lock().unwrap().push(key.to_owned());
        }
    }
}

impl Partition for Counted<'_> {
    fn get(&self, key: &str) -> Option<String> {
        self.arrive(key);
        self.map.get(key).cloned()
    }
    fn put(&mut self, key: String, value: String) -> Option<String> {
        self.arrive(&key);
        self.map.insert(key, value)
    }
    fn len(&self) -> usize {
        self.map.len()
    }
}

/// Runs the kv server with two workers and two shards while `test(addr, calls)` runs,
/// then shuts it down and checks that it stopped cleanly.
fn with_server(test: impl FnOnce(SocketAddr, &AtomicUsize) + Send) {
    let calls = AtomicUsize::new(0);
    let strays = Mutex::new(Vec::new());
    let config = Config {
        workers: 2,
        max_body: kv::MAX_VALUE,
        ..Config::default()
    };
    let server = Server::bind(SocketAddr::from(([127, 0, 0, 1], 0)), config).unwrap();
    let addr = server.local_addr().unwrap();
    let store = sharded_store::Config {
        shards: 2,
        queue: 64,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    thread::scope(|s| {
        let (calls, strays) = (&calls, &strays);
        let serving = s.spawn(move || {
            let make = |shard| Counted {
                shard,
                shards: 2,
                map: HashMap::new(),
                calls,
                strays,
            };
            kv::serve(server, &store, make, async {
                let _ = stopped.await;
            })
        });
        // Stop the server even if the test fails: dropping `stop` is the signal.
        let stop = stop;
        test(addr, calls);
        drop(stop);
        let stats = serving
            .join()
            .expect("the server panicked")
            .expect("the server failed");
        assert_eq!(stats.len(), 2);
    });
    assert!(
        strays.lock().unwrap().is_empty(),
        "calls reached a shard that does not own their key"
    );
}

fn watched(f: impl FnOnce() + Send + 'static) {
    lab_support::within(
        Duration::from_secs(30),
        "the kv server did not answer or stop",
        f,
    );
}

fn put(client: &mut Client, path: &str, body: &[u8]) -> Reply {
    let mut request = format!(
        "PUT {path} HTTP/1.1\r\nhost: test\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    client.send(&request).unwrap();
    client.read_reply().expect("a reply to a PUT")
}

#[test]
fn every_key_is_stored_and_read_back_through_any_worker() {
    watched(|| {
        with_server(|addr, calls| {
            for i in 0..40 {
                // A new connection each time: the acceptor deals them to both workers.
                let reply = put(
                    &mut Client::connect(addr),
                    &format!("/kv/key-{i}"),
                    format!("value {i}").as_bytes(),
                );
                assert_eq!(reply.status, 201, "{}", reply.text());
            }
            let again = put(&mut Client::connect(addr), "/kv/key-0", b"new value");
            assert_eq!((again.status, again.text()), (200, "replaced\n".to_owned()));
            for i in 1..40 {
                let reply = Client::connect(addr).get(&format!("/kv/key-{i}"));
                assert_eq!((reply.status, reply.text()), (200, format!("value {i}")));
            }
            assert_eq!(Client::connect(addr).get("/kv/key-0").text(), "new value");
            assert_eq!(Client::connect(addr).get("/kv/missing").status, 404);
            // A %-escaped key is the same key as its decoded form.
            assert_eq!(
                put(&mut Client::connect(addr), "/kv/caf%C3%A9", b"x").status,
                201
            );
            assert_eq!(Client::connect(addr).get("/kv/caf%c3%a9").text(), "x");
            // hyper passes raw UTF-8 in a path through: the same key again.
            assert_eq!(Client::connect(addr).get("/kv/café").text(), "x");
            assert_eq!(calls.load(SeqCst), 40 + 1 + 39 + 1 + 1 + 1 + 1 + 1);
        });
    });
}

// ANCHOR: bad_input
#[test]
fn bad_input_gets_4xx_and_never_reaches_a_shard() {
    watched(|| {
        with_server(|addr, calls| {
            let long_key = "k".repeat(kv::MAX_KEY + 1);
            let longest_key = "k".repeat(kv::MAX_KEY);
            let big = vec![b'v'; kv::MAX_VALUE + 1];
            let cases: Vec<(&str, Vec<u8>, u16)> = vec![
                (
                    "empty key",
                    b"GET /kv/ HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "key too long",
                    format!("GET /kv/{long_key} HTTP/1.1\r\nhost: t\r\n\r\n").into_bytes(),
                    400,
                ),
                (
                    "escaped key too long",
                    format!("GET /kv/{}%6B HTTP/1.1\r\nhost: t\r\n\r\n", longest_key).into_bytes(),
                    400,
                ),
                (
                    "key not UTF-8",
                    b"GET /kv/%FF%FE HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "raw bytes not UTF-8",
                    b"GET /kv/\xff\xfe HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "bad escape",
                    b"GET /kv/a%G1 HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "cut escape",
                    b"GET /kv/a% HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "two segments",
                    b"GET /kv/a/b HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "value not UTF-8",
                    b"PUT /kv/a HTTP/1.1\r\nhost: t\r\ncontent-length: 2\r\n\r\n\xff\xfe".to_vec(),
                    400,
                ),
                (
                    "empty body",
                    b"PUT /kv/a HTTP/1.1\r\nhost: t\r\ncontent-length: 0\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "no body at all",
                    b"PUT /kv/a HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    400,
                ),
                (
                    "value too large",
                    {
                        let mut r = format!(
                            "PUT /kv/a HTTP/1.1\r\nhost: t\r\ncontent-length: {}\r\n\r\n",
                            big.len()
                        )
                        .into_bytes();
                        r.extend_from_slice(&big);
                        r
                    },
                    413,
                ),
                (
                    "chunked value too large",
                    {
                        let mut r =
                            b"PUT /kv/a HTTP/1.1\r\nhost: t\r\ntransfer-encoding: chunked\r\n\r\n"
                                .to_vec();
                        for chunk in big.chunks(8192) {
                            r.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                            r.extend_from_slice(chunk);
                            r.extend_from_slice(b"\r\n");
                        }
                        r.extend_from_slice(b"0\r\n\r\n");
                        r
                    },
                    413,
                ),
                (
                    "other method",
                    b"DELETE /kv/a HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    405,
                ),
                (
                    "other path",
                    b"GET /nothing HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
                    404,
                ),
            ];
            for (what, request, status) in &cases {
                let mut client = Client::connect(addr);
                // A server may answer before it has read everything (413): a write that
                // fails then is fine, the reply is what counts.
                let _ = client.send(request);
                let reply = client
                    .read_reply()
                    .unwrap_or_else(|e| panic!("{what}: no reply ({e})"));
                assert_eq!(reply.status, *status, "{what}: {}", reply.text());
            }
            assert_eq!(calls.load(SeqCst), 0, "bad input reached a shard");
            // The longest allowed key is fine.
            let ok = put(
                &mut Client::connect(addr),
                &format!("/kv/{longest_key}"),
                b"v",
            );
            assert_eq!(ok.status, 201, "{}", ok.text());
            assert_eq!(calls.load(SeqCst), 1);
        });
    });
}
// ANCHOR_END: bad_input
