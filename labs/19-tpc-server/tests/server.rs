//! Tests for lab 19, written once: labs/19-tpc-server and solutions/19-tpc-server both run
//! this file. Real clients talk to the server on 127.0.0.1 (port 0) with blocking std
//! sockets; every read gives up after 10 s and every test after 45 s, so a wrong answer
//! fails instead of hanging. The handlers (tests/common) keep an `Rc` across `.await`.

mod common;

use common::{Client, Probe, config, serve, watched};
use tpc_server::WorkerStats;

// ANCHOR: round_robin
/// Six connections, three workers: connection i goes to worker i % 3, and stays there.
/// Every worker runs on a thread of its own and counts for itself.
#[test]
fn connections_are_dealt_round_robin() {
    watched(|| {
        let probe = Probe::default();
        let stats = serve(config(3), &probe, |addr, _| {
            let mut clients: Vec<Client> = (0..6).map(|_| Client::connect(addr)).collect();
            for round in 0..2 {
                for (i, client) in clients.iter_mut().enumerate() {
                    let reply = client.get("/");
                    assert_eq!(reply.status, 200);
                    assert_eq!(
                        reply.text(),
                        format!("worker {}", i % 3),
                        "round {round}: connection {i} should be served by worker {}",
                        i % 3
                    );
                }
            }
        });
        let each = WorkerStats {
            connections: 2,
            requests: 4,
            rejected: 0,
        };
        assert_eq!(stats, vec![each; 3], "what each worker counted");
        let threads = probe.threads();
        assert_eq!(threads.len(), 3, "three workers served requests");
        let all: std::collections::HashSet<_> = threads.values().flatten().collect();
        assert!(
            threads.values().all(|t| t.len() == 1) && all.len() == 3,
            "each worker runs on one thread of its own: {threads:?}"
        );
    });
}
// ANCHOR_END: round_robin

/// The handler's `Rc` counter lives on its worker: worker 0 counts its own hits, worker
/// 1 its own, across connections.
#[test]
fn handler_state_stays_on_its_worker() {
    watched(|| {
        let probe = Probe::default();
        serve(config(2), &probe, |addr, _| {
            let mut first = Client::connect(addr); // worker 0
            let mut second = Client::connect(addr); // worker 1
            let mut third = Client::connect(addr); // worker 0 again
            let hits = |client: &mut Client| client.get("/hits").text();
            assert_eq!(hits(&mut first), "1");
            assert_eq!(hits(&mut first), "2");
            assert_eq!(hits(&mut second), "1");
            assert_eq!(hits(&mut third), "3");
            assert_eq!(hits(&mut second), "2");
            assert_eq!(hits(&mut first), "4");
        });
    });
}

/// One worker, two requests that wait: the second starts while the first is waiting,
/// and a third connection is answered meanwhile.
#[test]
fn a_worker_serves_its_connections_concurrently() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            let mut first = Client::connect(addr);
            first
                .send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            assert_eq!(probe.started(), (0, "/wait"));
            let mut second = Client::connect(addr);
            second
                .send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            assert_eq!(
                probe.started(),
                (0, "/wait"),
                "the second request must start while the first one waits"
            );
            assert_eq!(Client::connect(addr).get("/").status, 200);
            probe.release(2);
            assert_eq!(first.read_reply().unwrap().text(), "released");
            assert_eq!(second.read_reply().unwrap().text(), "released");
        });
    });
}

// ANCHOR: in_flight
/// Shutdown closes idle connections at once, but finishes the request in flight first.
#[test]
fn shutdown_finishes_the_request_in_flight() {
    watched(|| {
        let probe = Probe::default();
        let stats = serve(config(1), &probe, |addr, stop| {
            let mut idle = Client::connect(addr);
            assert_eq!(idle.get("/").status, 200);
            let mut busy = Client::connect(addr);
            busy.send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            assert_eq!(probe.started(), (0, "/wait"));

            stop.now();
            idle.wait_closed()
                .expect("after shutdown, an idle connection should be closed at once");
            // The worker is stopping. The request in flight must still be answered.
            probe.release(1);
            let reply = busy
                .read_reply()
                .expect("the request in flight at shutdown was dropped, not finished");
            assert_eq!(reply.text(), "released");
            busy.wait_closed()
                .expect("after its last reply, the connection should close");
        });
        let done = WorkerStats {
            connections: 2,
            requests: 2,
            rejected: 0,
        };
        assert_eq!(stats, vec![done]);
    });
}
// ANCHOR_END: in_flight

// ANCHOR: owner
/// Each worker drives its own connections. The test freezes the acceptor's thread (it
/// blocks inside `shutdown`, so the acceptor's runtime runs nothing, reactor included),
/// and every worker must still serve the connections it was handed. A stream still
/// registered with the acceptor's reactor hears nothing while that runtime is frozen.
#[test]
fn each_worker_drives_its_own_connections() {
    watched(|| {
        let probe = Probe::default();
        serve(config(2), &probe, |addr, stop| {
            let mut clients: Vec<Client> = (0..4).map(|_| Client::connect(addr)).collect();
            for (i, client) in clients.iter_mut().enumerate() {
                assert_eq!(client.get("/").text(), format!("worker {}", i % 2));
            }

            let thaw = stop.freeze_acceptor();
            for round in 0..3 {
                for (i, client) in clients.iter_mut().enumerate() {
                    let request = b"GET / HTTP/1.1\r\nhost: t\r\n\r\n";
                    let _ = client.send(request);
                    let reply = client.read_reply().unwrap_or_else(|e| {
                        panic!(
                            "round {round}, connection {i}: no reply while the acceptor's \
                             thread is frozen ({e}). Is the stream still registered with \
                             the acceptor's runtime?"
                        )
                    });
                    assert_eq!(reply.text(), format!("worker {}", i % 2));
                }
            }
            drop(thaw);
            // The acceptor is back: new connections are dealt again.
            assert_eq!(Client::connect(addr).get("/").status, 200);
        });
    });
}
// ANCHOR_END: owner

/// An upload is in flight on each worker when the server stops; the rest of each body
/// arrives after the acceptor has stopped (its runtime is gone). Each worker reads it
/// and answers before it closes the connection.
#[test]
fn uploads_in_flight_finish_after_the_acceptor_stops() {
    watched(|| {
        let probe = Probe::default();
        serve(config(2), &probe, |addr, stop| {
            let mut uploads = Vec::new();
            for worker in 0..2 {
                let mut upload = Client::connect(addr); // connections 0 and 1
                upload
                    .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 5\r\n\r\nhel")
                    .unwrap();
                assert_eq!(probe.started(), (worker, "/upload"));
                uploads.push(upload);
            }
            let mut idle: Vec<Client> = (0..2).map(|_| Client::connect(addr)).collect();
            for (worker, client) in idle.iter_mut().enumerate() {
                assert_eq!(client.get("/").text(), format!("worker {worker}"));
            }

            stop.now();
            for client in &mut idle {
                // Each worker has heard that the acceptor stopped.
                client
                    .wait_closed()
                    .expect("idle connections close at shutdown");
            }
            for (worker, upload) in uploads.iter_mut().enumerate() {
                upload.send(b"lo").unwrap();
                let reply = upload.read_reply().unwrap_or_else(|e| {
                    panic!(
                        "worker {worker}: no reply to an upload whose body arrived after the \
                         acceptor stopped ({e})"
                    )
                });
                assert_eq!(
                    (reply.status, reply.text()),
                    (200, "5 bytes".to_owned()),
                    "worker {worker} could not read the rest of the body"
                );
            }
        });
    });
}

/// A worker with `max_connections` open answers the next connection with 503 and
/// closes it (a plain close is fine too), and takes new ones again once one has gone.
#[test]
fn a_full_worker_answers_503() {
    watched(|| {
        let probe = Probe::default();
        let limited = tpc_server::Config {
            max_connections: 2,
            ..config(1)
        };
        let stats = serve(limited, &probe, |addr, _| {
            let mut open: Vec<Client> = (0..2).map(|_| Client::connect(addr)).collect();
            for client in &mut open {
                assert_eq!(client.get("/").status, 200);
            }
            let mut over = Client::connect(addr);
            let _ = over.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n");
            let sent = over
                .wait_closed()
                .expect("a connection over the limit is closed");
            assert!(
                sent.is_empty() || sent.starts_with(b"HTTP/1.1 503"),
                "over the limit: 503 or a plain close, got {:?}",
                String::from_utf8_lossy(&sent)
            );
            // Open connections keep being served.
            assert_eq!(open[0].get("/").status, 200);
            // One leaves; soon a new connection is served again.
            drop(open.remove(0));
            let served = (0..500).any(|_| {
                let mut client = Client::connect(addr);
                let _ = client.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n");
                match client.read_reply() {
                    Ok(reply) if reply.status == 200 => true,
                    _ => {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        false
                    }
                }
            });
            assert!(
                served,
                "once a connection has gone, the worker takes a new one"
            );
        });
        assert!(stats[0].rejected >= 1, "the worker counts what it rejected");
        assert_eq!(
            stats[0].connections,
            3 + stats[0].rejected,
            "connections counts every connection handed to the worker, rejected ones too"
        );
    });
}

/// `run` returns the stats in worker order: `stats[i]` is what worker `i` counted. Each
/// worker counts something different, and worker 0 ends last: its request is in flight
/// when the server stops, and is let go only once the other workers have ended.
#[test]
fn stats_come_back_in_worker_order() {
    watched(|| {
        let probe = Probe::default();
        let stats = serve(config(3), &probe, |addr, stop| {
            let mut slow = Client::connect(addr); // worker 0
            slow.send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            assert_eq!(probe.started(), (0, "/wait"));
            let mut idle: Vec<Client> = (1..3).map(|_| Client::connect(addr)).collect();
            for (i, client) in idle.iter_mut().enumerate() {
                for _ in 0..=(i + 1) {
                    assert_eq!(client.get("/").text(), format!("worker {}", i + 1));
                }
            }
            stop.now();
            for client in &mut idle {
                client
                    .wait_closed()
                    .expect("idle connections close at shutdown");
            }
            // Workers 1 and 2 end now (their handlers go with them); worker 0 after this.
            let _ = probe.handlers_down_to(1);
            probe.release(1);
            assert_eq!(slow.read_reply().unwrap().text(), "released");
        });
        let counted = |requests| WorkerStats {
            connections: 1,
            requests,
            rejected: 0,
        };
        assert_eq!(
            stats,
            vec![counted(1), counted(2), counted(3)],
            "Server::run returns stats[i] = worker i's stats, in worker order, not in the order \
             the workers ended (worker 0 ended last here)"
        );
    });
}

/// The limit counts each worker's own connections: with `max_connections: 1` and two
/// workers, one connection on each is served, and the next one on either gets 503.
#[test]
fn the_limit_is_per_worker() {
    watched(|| {
        let probe = Probe::default();
        let limited = tpc_server::Config {
            max_connections: 1,
            ..config(2)
        };
        let stats = serve(limited, &probe, |addr, _| {
            let mut first = Client::connect(addr); // worker 0
            assert_eq!(first.get("/").text(), "worker 0");
            let mut second = Client::connect(addr); // worker 1
            let reply = second.get("/");
            assert_eq!(
                (reply.status, reply.text()),
                (200, "worker 1".to_owned()),
                "worker 1 has no connection open, so it serves this one. Is the limit counted \
                 over every worker (in a static or an atomic) instead of per worker?"
            );
            for worker in 0..2 {
                let mut over = Client::connect(addr); // worker 0, then worker 1
                over.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
                let reply = over.read_reply().unwrap_or_else(|e| {
                    panic!("worker {worker} is full: the next connection gets a 503 ({e})")
                });
                assert_eq!(reply.status, 503, "worker {worker} is full");
                over.wait_closed().expect("closed after 503");
            }
        });
        let each = WorkerStats {
            connections: 2,
            requests: 1,
            rejected: 1,
        };
        assert_eq!(stats, vec![each; 2], "what each worker counted");
    });
}

/// A full worker answers every connection over the limit with `Busy`'s 503 (a bare close
/// tells the client nothing), even after a rejected one has gone, and even while a client
/// over the limit says nothing at all. The handler answers none of them, so they are not
/// counted in `requests`.
#[test]
fn a_full_worker_keeps_answering_503() {
    watched(|| {
        let probe = Probe::default();
        let limited = tpc_server::Config {
            max_connections: 2,
            ..config(1)
        };
        let stats = serve(limited, &probe, |addr, _| {
            let mut open: Vec<Client> = (0..2).map(|_| Client::connect(addr)).collect();
            for client in &mut open {
                assert_eq!(client.get("/").status, 200);
            }
            let _silent = Client::connect(addr); // over the limit, and it never sends a byte
            for attempt in 1..=3 {
                let mut over = Client::connect(addr);
                over.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
                let reply = over.read_reply().unwrap_or_else(|e| {
                    panic!(
                        "connection {attempt} over the limit sent its request and got no \
                         answer ({e}). It should get Busy's 503: was it dropped without a \
                         reply, or is the worker waiting on the silent client over the limit \
                         instead of serving it in its scope?"
                    )
                });
                assert_eq!(
                    reply.status, 503,
                    "connection {attempt} over the limit, with both allowed connections still \
                     open. Does a rejected connection give back a place it never took?"
                );
                over.wait_closed().expect("closed after 503");
            }
            for client in &mut open {
                assert_eq!(client.get("/").status, 200, "open connections are served");
            }
        });
        assert_eq!(
            stats,
            vec![WorkerStats {
                connections: 6,
                requests: 4,
                rejected: 4,
            }],
            "2 connections served (4 requests), 4 rejected. `requests` counts what the \
             handler answered: Busy's replies are not requests"
        );
    });
}

/// Two servers in one process at the same time count apart: a worker's counters and its
/// open connections are its own, not in a `static` that every server shares.
#[test]
fn two_servers_count_apart() {
    watched(|| {
        let (probe_a, probe_b) = (Probe::default(), Probe::default());
        let (meet_a, meet_b) = common::Meeting::pair();
        let limited = tpc_server::Config {
            max_connections: 1,
            ..config(1)
        };
        let (a, b) = std::thread::scope(|s| {
            let probe_a = &probe_a;
            let a = s.spawn(move || {
                serve(limited, probe_a, |addr, _| {
                    let mut client = Client::connect(addr);
                    assert_eq!(client.get("/").status, 200);
                    meet_a.meet("server A's connection is open");
                    assert_eq!(client.get("/").status, 200);
                    meet_a.meet("both servers are done");
                })
            });
            let b = serve(limited, &probe_b, |addr, _| {
                meet_b.meet("server A's connection is open");
                let mut client = Client::connect(addr);
                for _ in 0..3 {
                    let reply = client.get("/");
                    assert_eq!(
                        reply.status, 200,
                        "server B has one connection open, and its limit is 1: it serves it. \
                         Does it count server A's connections too (a static)?"
                    );
                }
                meet_b.meet("both servers are done");
            });
            (a.join().expect("server A's test panicked"), b)
        });
        let counted = |requests| {
            vec![WorkerStats {
                connections: 1,
                requests,
                rejected: 0,
            }]
        };
        let why = "each server counts only its own: are the counters in a static?";
        assert_eq!(a, counted(2), "server A: {why}");
        assert_eq!(b, counted(3), "server B: {why}");
    });
}

/// A worker is one task for all of its connections. Inside tokio's cooperative budget
/// they would share 128 operations per poll of that task, and the ones it ran out on
/// would wait behind the others (see "Thread-per-core, measured").
#[test]
fn a_worker_runs_outside_tokio_budget() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            let forced = Client::connect(addr).get("/budget").text();
            assert_eq!(
                forced, "0",
                "tokio's budget made the handler yield {forced} times in 1,000 operations: the \
                 worker's task runs inside the cooperative budget, which all of its connections \
                 share; run the worker under tokio::task::coop::unconstrained (chapter 19, \
                 \"Thread-per-core, measured\")"
            );
        });
    });
}
