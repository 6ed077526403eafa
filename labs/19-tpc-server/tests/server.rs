//! Tests for lab 19, written once: labs/19-tpc-server and solutions/19-tpc-server both run
//! this file. Real clients talk to the server on 127.0.0.1 (port 0) with blocking std
//! sockets. Everything these tests wait for, a correct server does at once, so every read
//! gives up after 2 s (`common::PROMPT`), a server that has not stopped 2 s after
//! `shutdown` fails its test, and every test fails after 30 s: a wrong answer fails
//! quickly instead of hanging. The handlers (tests/common) keep an `Rc` across `.await`.

mod common;

use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use common::{
    Client, PANIC, PROMPT, Probe, Task, Unblock, bind, config, connect, serve, serve_server,
    try_serve, watched,
};
use lab_support::OsThread;
use lab_support::http::is_reset;
use tpc_server::{Config, WorkerStats};

// ANCHOR: round_robin
/// Six connections, three workers: connection i goes to worker i % 3, and stays there.
/// Every worker runs on a thread of its own and counts for itself.
#[test]
fn connections_are_dealt_round_robin() {
    watched(|| {
        let probe = Probe::default();
        let stats = serve(config(3), &probe, |addr, _| {
            let mut clients: Vec<Client> = (0..6).map(|_| connect(addr)).collect();
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
            let mut first = connect(addr); // worker 0
            let mut second = connect(addr); // worker 1
            let mut third = connect(addr); // worker 0 again
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

/// One worker (worker 1 of two), two requests that wait: the second starts while the
/// first is waiting, and a third connection is answered meanwhile, 50 times. The worker
/// polls only the connections that were woken: the two waiting ones are not polled again
/// for the others' requests (a worker that polls every connection on each wake-up does
/// work in proportion to its open connections for each event).
#[test]
fn a_worker_serves_its_connections_concurrently() {
    watched(|| {
        let probe = Probe::default();
        // Two workers, and the test talks to worker 1: every worker serves this way.
        serve(config(2), &probe, |addr, _| {
            // Connections 1, 3 and 5 go to worker 1; 0, 2 and 4 to worker 0, and stay idle.
            let mut clients: Vec<Client> = (0..6).map(|_| connect(addr)).collect();
            let mut third = clients.pop().unwrap();
            let mut second = clients.swap_remove(3);
            let mut first = clients.swap_remove(1);
            first
                .send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            assert_eq!(probe.started(), (1, "/wait"));
            second
                .send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            assert_eq!(
                probe.started(),
                (1, "/wait"),
                "the second request must start while the first one waits"
            );
            let polls = probe.wait_polls();
            for _ in 0..50 {
                assert_eq!(third.get("/").status, 200);
            }
            let polled = probe.wait_polls() - polls;
            assert!(
                polled <= 5,
                "while two requests waited on worker 1, 50 requests on another connection of \
                 the same worker polled the waiting handlers {polled} times, though nothing had woken \
                 them. The worker polls every connection each time it is woken (a Vec of \
                 futures polled in a loop), which costs it work for every open connection on \
                 every event. Serve the connections as jobs of a scope, which polls only the \
                 ones whose waker fired"
            );
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
            // `busy` is accepted first, so a stream left on the acceptor's reactor hears
            // its shutdown before `idle` does, not in a race with the release below.
            let mut busy = connect(addr);
            let mut idle = connect(addr);
            assert_eq!(idle.get("/").status, 200);
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
            let mut clients: Vec<Client> = (0..4).map(|_| connect(addr)).collect();
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
            assert_eq!(connect(addr).get("/").status, 200);
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
                let mut upload = connect(addr); // connections 0 and 1
                upload
                    .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 5\r\n\r\nhel")
                    .unwrap();
                assert_eq!(probe.started(), (worker, "/upload"));
                uploads.push(upload);
            }
            let mut idle: Vec<Client> = (0..2).map(|_| connect(addr)).collect();
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
            let mut open: Vec<Client> = (0..2).map(|_| connect(addr)).collect();
            for client in &mut open {
                assert_eq!(client.get("/").status, 200);
            }
            let mut over = connect(addr);
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
                let mut client = connect(addr);
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
            let mut slow = connect(addr); // worker 0
            slow.send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            assert_eq!(probe.started(), (0, "/wait"));
            let mut idle: Vec<Client> = (1..3).map(|_| connect(addr)).collect();
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
            let mut first = connect(addr); // worker 0
            assert_eq!(first.get("/").text(), "worker 0");
            let mut second = connect(addr); // worker 1
            let reply = second.get("/");
            assert_eq!(
                (reply.status, reply.text()),
                (200, "worker 1".to_owned()),
                "worker 1 has no connection open, so it serves this one. Is the limit counted \
                 over every worker (in a static or an atomic) instead of per worker?"
            );
            for worker in 0..2 {
                let mut over = connect(addr); // worker 0, then worker 1
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
/// over the limit says nothing at all. Busy reads the request before it answers: the silent
/// client has been sent nothing. The handler answers none of them, so they are not counted
/// in `requests`; and they take no place: once one of the two served connections has
/// gone, the next connection is served, though the silent one is still there.
#[test]
fn a_full_worker_keeps_answering_503() {
    watched(|| {
        let probe = Probe::default();
        let limited = tpc_server::Config {
            max_connections: 2,
            ..config(1)
        };
        let stats = serve(limited, &probe, |addr, _| {
            let mut open: Vec<Client> = (0..2).map(|_| connect(addr)).collect();
            for client in &mut open {
                assert_eq!(client.get("/").status, 200);
            }
            let mut silent = connect(addr); // over the limit, and it says nothing yet
            for attempt in 1..=3 {
                let mut over = connect(addr);
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
            // The worker took the silent connection before those three. It has sent it
            // nothing: Busy answers a request, and there has been none yet.
            silent.stream().set_nonblocking(true).unwrap();
            let early = silent.stream().read(&mut [0; 512]);
            silent.stream().set_nonblocking(false).unwrap();
            match early {
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Ok(0) => panic!(
                    "a client over the limit that had not sent its request yet was closed at \
                     once: it never gets its 503. Serve a connection over the limit with \
                     `connection(stream, &Busy, …)`, as a job of the scope"
                ),
                Ok(n) => panic!(
                    "a client over the limit that had not sent its request yet was sent {n} \
                     bytes: a 503 written before the request was read answers nothing, and a \
                     socket closed with the request unread resets the connection, so a client \
                     may never see it. Serve a connection over the limit with \
                     `connection(stream, &Busy, …)`: hyper reads the request, then Busy answers \
                     503"
                ),
                Err(e) => panic!(
                    "a client over the limit that had not sent its request yet lost its \
                     connection ({e}): it should wait for Busy's 503 like any other"
                ),
            }
            // One of the two served connections leaves: it says so, and the server closes it.
            open[0]
                .send(b"GET / HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
                .unwrap();
            assert_eq!(open[0].read_reply().unwrap().status, 200);
            open[0]
                .wait_closed()
                .expect("closed after a request that says `connection: close`");
            let mut next = connect(addr);
            next.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            let status = next.read_reply().map(|reply| reply.status);
            assert!(
                matches!(status, Ok(200)),
                "the worker served one connection and its limit is 2, so it should serve the \
                 next one; it answered {status:?}. The silent client over the limit is still \
                 connected, but Busy serves it: it takes no place. Does a connection over the \
                 limit count as open while Busy answers it?"
            );
            // The silent client's request comes at last: Busy answers it.
            silent.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            let reply = silent.read_reply().unwrap_or_else(|e| {
                panic!("the client over the limit sent its request late and got no answer ({e})")
            });
            assert_eq!(reply.status, 503, "Busy's answer to the late request");
            silent.wait_closed().expect("closed after 503");
            for client in [&mut open[1], &mut next] {
                assert_eq!(client.get("/").status, 200, "open connections are served");
            }
        });
        assert_eq!(
            stats,
            vec![WorkerStats {
                connections: 7,
                requests: 6,
                rejected: 4,
            }],
            "3 connections served (6 requests), 4 rejected. `requests` counts what the \
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
                    let mut client = connect(addr);
                    assert_eq!(client.get("/").status, 200);
                    meet_a.meet("server A's connection is open");
                    assert_eq!(client.get("/").status, 200);
                    meet_a.meet("both servers are done");
                })
            });
            let b = serve(limited, &probe_b, |addr, _| {
                meet_b.meet("server A's connection is open");
                let mut client = connect(addr);
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
/// would wait behind the others (see "Thread-per-core, measured"). Every worker, not only
/// the first.
#[test]
fn a_worker_runs_outside_tokio_budget() {
    watched(|| {
        let probe = Probe::default();
        serve(config(2), &probe, |addr, _| {
            for worker in 0..2 {
                let mut client = connect(addr); // connection i: worker i
                let reply = client.get("/budget");
                assert_eq!(reply.header("x-worker"), Some(worker.to_string().as_str()));
                let forced = reply.text();
                assert_eq!(
                    forced, "0",
                    "worker {worker}: tokio's budget made the handler yield {forced} times in \
                     1,000 operations: the worker's task runs inside the cooperative budget, \
                     which all of its connections share; run every worker under \
                     tokio::task::coop::unconstrained (chapter 19, \"Thread-per-core, \
                     measured\")"
                );
            }
        });
    });
}

/// Each connection is a job of its worker, run by the worker's own future, not a tokio
/// task of its own. `GET /task` answers which tokio task runs its handler: none, inside
/// the worker (`block_on` has no task id).
#[test]
fn a_worker_does_not_detach_its_connections() {
    watched(|| {
        let probe = Probe::default();
        serve(config(2), &probe, |addr, _| {
            for i in 0..4 {
                let task = connect(addr).get("/task").text();
                assert_eq!(
                    task, "no task",
                    "connection {i}: its handler ran in tokio {task}, a task of its own. The \
                     worker spawned the connection (spawn_local) instead of serving it as a \
                     job of its scope. A spawned task is detached: it must be 'static, so it \
                     can borrow the worker's handler and state only through a transmute or a \
                     leak, and the worker may end, its state with it, while the task still \
                     runs"
                );
            }
        });
    });
}

/// How many times a thread of the server may go to sleep while the test watches it: a
/// few wake-ups for the events of the test (a connection, a timer, the stop), and a wide
/// margin. A loop that checks a flag every millisecond goes over it within some 20 ms.
const WAKE_UPS: u64 = 20;

/// Reads `client` until the server closes it, meanwhile watching `threads` through the
/// OS: each must be asleep while it waits (not spinning), and go to sleep no more than
/// [`WAKE_UPS`] times (not napping in a loop). `during` says what the server is doing.
fn watch_until_closed(client: &mut Client, threads: &[(&str, OsThread)], during: &str) {
    let stream = client.stream();
    stream
        .set_read_timeout(Some(Duration::from_millis(5)))
        .unwrap();
    let first: Vec<u64> = threads
        .iter()
        .map(|(_, t)| t.sleeps().unwrap_or(0))
        .collect();
    let mut asleep = vec![0usize; threads.len()];
    let (mut looks, deadline) = (0, Instant::now() + PROMPT);
    loop {
        match (&*stream).read(&mut [0; 4096]) {
            Ok(0) => break,
            Ok(_) => continue, // a reply (the 408): the close follows
            Err(e) if is_reset(&e) => break,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => panic!("{during}: reading from the server failed: {e}"),
        }
        looks += 1;
        for (i, (name, thread)) in threads.iter().enumerate() {
            let Some(sleeps) = thread.sleeps() else {
                continue; // the thread has ended: the server is done
            };
            let woken = sleeps - first[i];
            assert!(
                woken <= WAKE_UPS,
                "{name} went to sleep and woke up {woken} times while the server was {during}, \
                 where a few wake-ups are all there is to handle. It checks for something in a \
                 loop with a short sleep (a flag every millisecond, a `sleep` or an interval \
                 in a loop) instead of waiting to be woken: await what you wait for (the stop \
                 signal's `wait()`, the inbox, the scope), so that its waker wakes you when it \
                 happens"
            );
            asleep[i] += usize::from(thread.asleep() == Some(true));
        }
        assert!(
            Instant::now() < deadline,
            "the server was {during}, and the connection was not closed within {PROMPT:?}"
        );
    }
    for (i, (name, _)) in threads.iter().enumerate() {
        assert!(
            asleep[i] > 0 || looks < 5,
            "{name} was never asleep in {looks} looks while the server was {during}: it \
             spins (a loop that polls or yields without waiting), burning a core. Await what \
             you wait for, so that the thread sleeps until its waker wakes it"
        );
    }
}

/// How long the test watches an idle server, and how many times each of its threads may go
/// to sleep (and so wake up) meanwhile: none is needed, as nothing happens. A thread that
/// checks for something every 200 ms or more often wakes at least three times.
const IDLE: Duration = Duration::from_millis(600);
const IDLE_WAKE_UPS: u64 = 2;

/// A server is its acceptor and its workers, and while it waits they sleep until what they
/// wait for happens: a connection, a request, the stop. The test runs in a process of its
/// own, so that every thread it did not start is the server's, and watches them through
/// the OS (Linux's /proc; elsewhere it checks nothing): twice idle, one keep-alive
/// connection open on each worker, and then stopping, an upload in flight until its body
/// timeout answers it.
#[test]
fn a_waiting_server_sleeps() {
    if OsThread::current().is_none() {
        eprintln!("skipped: this OS does not say whether a thread sleeps");
        return;
    }
    common::alone("a_waiting_server_sleeps", || {
        let before = common::tasks();
        let probe = Probe::default();
        let short = Config {
            body_timeout: Duration::from_millis(200),
            ..config(2)
        };
        serve(short, &probe, |addr, stop| {
            let mut idle: Vec<Client> = (0..2).map(|_| connect(addr)).collect();
            for (i, client) in idle.iter_mut().enumerate() {
                assert_eq!(client.get("/").text(), format!("worker {i}"));
            }
            let worker = probe.worker_thread(0).expect("worker 0's thread");
            let (runner, acceptor) = (probe.runner_thread(), probe.acceptor_thread());
            let workers = [Some(worker), probe.worker_thread(1)];
            let name = |task: &Task| {
                if task.is(acceptor) {
                    "the acceptor (the thread that polls `shutdown`)".to_owned()
                } else if let Some(i) = workers.iter().position(|w| task.is(*w)) {
                    format!("worker {i}")
                } else if task.is(runner) {
                    "the thread that called Server::run".to_owned()
                } else {
                    format!("the thread {:?}", task.name())
                }
            };
            // Every thread the test did not start, now.
            let server = || -> Vec<Task> { common::tasks().difference(&before).cloned().collect() };
            let census = || {
                for task in server() {
                    if task.is(runner) || task.is(acceptor) || workers.iter().any(|w| task.is(*w)) {
                        continue;
                    }
                    let name = task.name();
                    // tokio names its threads `tokio-rt-worker` (its blocking pool's too).
                    let what = if name.starts_with("tokio") {
                        "That is a thread of a tokio multi-thread runtime (or of its blocking \
                         pool): a runtime shared by the workers, whose thread drives their \
                         sockets and timers, where each worker's connections belong to the \
                         runtime of the worker's own thread (a current-thread `LocalRuntime`, \
                         started on that thread)"
                    } else {
                        "A thread of your own, such as one that keeps every worker's stats: a \
                         worker counts for itself, in plain cells, and returns its stats when \
                         it ends"
                    };
                    panic!(
                        "Server::run started a thread that is neither the acceptor nor a worker: \
                         {name:?}. {what}. A thread-per-core server is the acceptor and one \
                         thread per worker, nothing else."
                    );
                }
            };
            census();

            let watched = server();
            let first: Vec<u64> = watched.iter().map(|t| t.sleeps().unwrap_or(0)).collect();
            let (mut looks, mut asleep) = (0, vec![0; watched.len()]);
            let start = Instant::now();
            while start.elapsed() < IDLE {
                std::thread::sleep(Duration::from_millis(10));
                looks += 1;
                for (i, task) in watched.iter().enumerate() {
                    asleep[i] += usize::from(task.asleep() == Some(true));
                }
            }
            census();
            for (i, task) in watched.iter().enumerate() {
                let woken = task.sleeps().unwrap_or(first[i]) - first[i];
                assert!(
                    woken <= IDLE_WAKE_UPS,
                    "{} went to sleep and woke up {woken} times in {IDLE:?} while the server \
                     was idle (one keep-alive connection on each worker, nothing to do). It \
                     checks for something in a loop with a short sleep (an inbox with \
                     try_recv, a stop flag, a channel polled every few milliseconds) instead \
                     of waiting to be woken: await what you wait for (`inbox.recv()`, the stop \
                     signal's `wait()`, the scope), so that its waker wakes you when it happens",
                    name(task)
                );
                assert!(
                    2 * asleep[i] >= looks,
                    "{} was asleep in only {} of {looks} looks while the server was idle: it \
                     spins (a loop that polls or yields without waiting), burning a core. \
                     Await what you wait for, so that the thread sleeps until its waker wakes \
                     it",
                    name(task),
                    asleep[i]
                );
            }

            let mut upload = connect(addr); // connection 2: worker 0
            upload
                .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 10\r\n\r\nabc")
                .unwrap();
            assert_eq!(probe.started(), (0, "/upload"));
            stop.now();
            watch_until_closed(
                &mut upload,
                &[("worker 0", worker)],
                "stopping (an upload in flight until its body timeout)",
            );
            census();
        });
    });
}

/// An accept that fails (as it does when the process is out of file descriptors) does not
/// stop the server: the acceptor notes it and accepts again. `fail_accepts(3)` makes the
/// first three accepts fail; the connection they were for stays queued, and is served.
#[test]
fn a_failed_accept_does_not_stop_the_server() {
    watched(|| {
        let probe = Probe::default();
        let server = bind(config(2)).fail_accepts(3);
        let stats = serve_server(server, &probe, |addr, _| {
            let mut first = connect(addr);
            first.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            let reply = first.read_reply().unwrap_or_else(|e| {
                panic!(
                    "the first three accepts failed (as they do when the process is out of \
                     file descriptors), and the client they were for got no answer ({e}). A \
                     failed accept is not the end of the server: did the acceptor return the \
                     error (`?`) or stop there? Note it and accept again"
                )
            });
            assert_eq!(
                reply.text(),
                "worker 0",
                "the connection whose accepts failed is still the first one dealt"
            );
            for i in 1..4 {
                let reply = connect(addr).get("/");
                assert_eq!(reply.text(), format!("worker {}", i % 2), "connection {i}");
            }
        });
        let each = WorkerStats {
            connections: 2,
            requests: 2,
            rejected: 0,
        };
        assert_eq!(stats, vec![each; 2], "what each worker counted");
    });
}

/// A failed accept is said on stderr, with the error: whoever runs the server must learn
/// that it is out of file descriptors. The test runs in a process of its own, whose stderr
/// is the server's: `fail_accepts(2)` makes the first two accepts fail, the client is
/// served after them, and stderr must quote the error (its text starts with "too many open
/// files").
#[test]
fn a_failed_accept_is_reported_on_stderr() {
    let name = "a_failed_accept_is_reported_on_stderr";
    let stderr = common::alone_stderr(name, || {
        let probe = Probe::default();
        let server = bind(config(1)).fail_accepts(2);
        serve_server(server, &probe, |addr, _| {
            assert_eq!(connect(addr).get("/").status, 200);
        });
    });
    if let Some(stderr) = stderr {
        assert!(
            stderr.contains("too many open files"),
            "two accepts failed with \"too many open files\", and the server said nothing \
             about it on stderr (it wrote {stderr:?}). A failed accept is not the end of the \
             server, but it is news for whoever runs it: print the error (eprintln!) before \
             the pause"
        );
    }
}

/// Connections over the limit belong to their worker like the others: at shutdown they
/// are stopped too, so a client over the limit that says nothing is closed at once, and
/// does not hold the worker (and `run`) until its header timeout (here 20 s).
#[test]
fn shutdown_closes_connections_over_the_limit() {
    watched(|| {
        let probe = Probe::default();
        let limited = Config {
            max_connections: 1,
            ..config(1)
        };
        let stats = serve(limited, &probe, |addr, stop| {
            let mut open = connect(addr);
            assert_eq!(open.get("/").status, 200);
            let mut silent: Vec<Client> = (0..2).map(|_| connect(addr)).collect();
            // The worker takes its connections in order: once this one is answered, the
            // silent ones before it are the worker's.
            let mut last = connect(addr);
            last.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            let reply = last.read_reply().unwrap_or_else(|e| {
                panic!(
                    "a connection over the limit sent its request and got no answer ({e}): it \
                     gets Busy's 503, served as a job of the worker's scope"
                )
            });
            assert_eq!(reply.status, 503, "over the limit");
            stop.now();
            for (i, client) in silent.iter_mut().enumerate() {
                let sent = client.wait_closed().unwrap_or_else(|e| {
                    panic!(
                        "silent client {i}, over the limit, was still connected {PROMPT:?} after \
                         shutdown ({e}): its connection was not told to stop, so the worker \
                         waits for its header timeout. Busy's connections need the worker's \
                         stop signal (`stop.wait()`) like every other"
                    )
                });
                assert!(
                    sent.is_empty() || sent.starts_with(b"HTTP/1.1 503"),
                    "a close (or a 503), got {:?}",
                    String::from_utf8_lossy(&sent)
                );
            }
            open.wait_closed()
                .expect("an idle connection closes at shutdown");
        });
        let counted = WorkerStats {
            connections: 4,
            requests: 1,
            rejected: 3,
        };
        assert_eq!(stats, vec![counted]);
    });
}

/// A request over the limit is a request like any other: one in flight at shutdown is
/// finished. Its client has sent half its head when the server stops, and sends the rest a
/// second later, longer than any "grace period" a worker might give its connections before
/// it drops them; Busy still reads it and answers 503. The served connection is idle, so
/// the worker has nothing else to wait for: only a worker whose scope holds Busy's
/// connections too is still there to answer.
#[test]
fn shutdown_finishes_a_request_over_the_limit() {
    watched(|| {
        let probe = Probe::default();
        let limited = Config {
            max_connections: 1,
            ..config(1)
        };
        let stats = serve(limited, &probe, |addr, stop| {
            let mut open = connect(addr);
            assert_eq!(open.get("/").status, 200);
            let mut late = connect(addr); // over the limit
            late.send(b"GET / HTTP/1.1\r\n").unwrap();
            // Answered after the worker has read the first bytes of `late`.
            let mut last = connect(addr); // over the limit too
            last.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            let reply = last.read_reply().unwrap_or_else(|e| {
                panic!(
                    "a connection over the limit sent its request and got no answer ({e}): it \
                     gets Busy's 503, served as a job of the worker's scope"
                )
            });
            assert_eq!(reply.status, 503, "over the limit");
            last.wait_closed().expect("closed after 503");
            stop.now();
            open.wait_closed()
                .expect("after shutdown, an idle connection should be closed at once");
            // The worker is stopping, `late` still in flight. The rest of its head comes
            // a second later.
            std::thread::sleep(Duration::from_secs(1));
            let _ = late.send(b"host: t\r\n\r\n"); // a closed socket fails here or below
            let reply = late.read_reply().unwrap_or_else(|e| {
                panic!(
                    "a client over the limit had sent half its request head when the server \
                     stopped, and the rest 1 s later: it got no answer ({e}). Shutdown finishes \
                     every request in flight, Busy's too, however long it takes (timeouts bound \
                     it, not a grace period). Is the connection over the limit a detached task \
                     (spawn_local) that nobody waits for, so that it goes with the worker's \
                     runtime? Or does the worker give its connections a grace period and then \
                     drop them? Serve it as a job of the worker's scope, which waits for all of \
                     its jobs"
                )
            });
            assert_eq!(reply.status, 503, "Busy's answer to the late request");
            late.wait_closed()
                .expect("after its last reply, the connection should close");
        });
        let counted = WorkerStats {
            connections: 3,
            requests: 1,
            rejected: 2,
        };
        assert_eq!(stats, vec![counted], "what the worker counted");
    });
}

/// A burst of connections for a worker that is busy (its handler blocks its thread) waits
/// in that worker's hand-off queue, however long the queue gets: none is dropped on its
/// way, and the other worker goes on serving meanwhile. Once the busy worker is back, every
/// client gets an answer: 200, or 503 beyond `max_connections`, never a close without one.
#[test]
fn a_burst_for_a_busy_worker_is_answered() {
    /// Connections for each worker: more than a small bounded queue holds.
    const BURST: usize = 100;
    const LIMIT: usize = 8;
    watched(|| {
        let probe = Probe::default();
        let limited = Config {
            max_connections: LIMIT,
            ..config(2)
        };
        let stats = serve(limited, &probe, |addr, _| {
            let mut busy = connect(addr); // connection 0: worker 0
            busy.send(b"GET /block HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            assert_eq!(probe.started(), (0, "/block"));
            let unblock = Unblock(&probe);

            let mut clients = Vec::new(); // all kept open, so the counts are exact
            for i in 1..=2 * BURST {
                let mut client = connect(addr);
                client.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
                if i % 2 == 1 {
                    let reply = client.read_reply().unwrap_or_else(|e| {
                        panic!(
                            "connection {i}, dealt to worker 1, got no answer while worker 0 \
                             was busy ({e}). Is the acceptor waiting for room in worker 0's \
                             queue (a bounded channel whose send waits)? One busy worker must \
                             not hold up the others: hand off through unbounded channels"
                        )
                    });
                    assert!(
                        [200, 503].contains(&reply.status),
                        "connection {i}: {}",
                        reply.status
                    );
                }
                clients.push((i, client));
            }
            // Worker 1 has answered the last connection, so the acceptor has dealt them
            // all: BURST of them wait for worker 0.
            drop(unblock);
            let reply = busy.read_reply().unwrap_or_else(|e| {
                panic!("the request that blocked worker 0 got no answer once let go ({e})")
            });
            assert_eq!(reply.text(), "unblocked");
            for (i, client) in clients.iter_mut().filter(|(i, _)| i % 2 == 0) {
                let reply = client.read_reply().unwrap_or_else(|e| {
                    panic!(
                        "connection {i}, dealt to worker 0 while it was busy, got no answer \
                         ({e}): it was dropped on its way. Did the hand-off drop what did not \
                         fit in a bounded queue (`try_send`)? Every connection gets 200 or 503"
                    )
                });
                assert!(
                    [200, 503].contains(&reply.status),
                    "connection {i}: {}",
                    reply.status
                );
            }
        });
        let (served, burst) = (LIMIT as u64, BURST as u64);
        assert_eq!(
            stats,
            vec![
                WorkerStats {
                    connections: burst + 1,
                    requests: served,
                    rejected: burst + 1 - served,
                },
                WorkerStats {
                    connections: burst,
                    requests: served,
                    rejected: burst - served,
                },
            ],
            "each worker served {LIMIT} connections (one request each) and rejected the rest"
        );
    });
}

/// A handler that panics takes its worker down at once: a panic is a bug, the worker's state
/// may be half-changed, and there is nothing sound to answer with, so its client gets no
/// answer, and the connections dealt to that worker afterwards are closed. The other worker
/// serves on, and the acceptor keeps dealing to it. Once the server has stopped, `run`
/// panics with the handler's message (or returns an error that quotes it), rather than
/// returning that worker's stats as if nothing had happened.
#[test]
fn a_panicking_handler_is_reported() {
    watched(|| {
        let probe = Probe::default();
        let outcome = try_serve(bind(config(2)), &probe, |addr, _| {
            let mut client = connect(addr); // connection 0: worker 0
            client
                .send(b"GET /panic HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            let sent = client.wait_closed().unwrap_or_else(|e| {
                panic!(
                    "worker 0's handler panicked, and its connection was still open {PROMPT:?} \
                     later ({e}): the panic should take the worker down, and its connections \
                     with it. Does the worker catch the panic (catch_unwind, or a task of its \
                     own that keeps it)?"
                )
            });
            assert!(
                sent.is_empty(),
                "worker 0's handler panicked, and its client got {:?}. A handler's panic takes \
                 its worker down at once, and its client gets no answer: does the worker catch \
                 the panic (catch_unwind) and answer 500, serving on with whatever state the \
                 panic left half-changed? Let the panic end the worker's thread; `run` passes \
                 it on",
                String::from_utf8_lossy(&sent)
            );
            assert!(
                probe.handlers_down_to(1),
                "worker 0's handler panicked, and worker 0 was still running {PROMPT:?} later \
                 (its handler had not been dropped). The panic should end the worker's thread: \
                 does the worker catch it (catch_unwind, or a task of its own that keeps it)?"
            );
            for i in 1..6 {
                // Odd connections go to worker 1, even ones to worker 0, which is gone.
                let dealt = std::panic::catch_unwind(|| {
                    let mut client = connect(addr);
                    let _ = client.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n");
                    client
                });
                let Ok(mut client) = dealt else {
                    panic!(
                        "connection {i} was refused after worker 0 had died: the acceptor had \
                         stopped. Did it stop because its hand-off to the dead worker failed \
                         (`send(…).unwrap()` or `expect`)? A dead worker loses its turns; the \
                         acceptor goes on, and the other workers serve on"
                    )
                };
                if i % 2 == 1 {
                    let reply = client.read_reply().unwrap_or_else(|e| {
                        panic!(
                            "connection {i}, dealt to worker 1, got no answer after worker 0 \
                             had died ({e}). Did the acceptor stop because its hand-off to the \
                             dead worker failed (`send(…).unwrap()` or `expect`)? A dead worker \
                             loses its turns; the acceptor goes on, and the other workers serve \
                             on"
                        )
                    });
                    assert_eq!(reply.text(), "worker 1", "connection {i}");
                } else {
                    let sent = client.wait_closed().unwrap_or_else(|e| {
                        panic!(
                            "connection {i}, dealt to worker 0, which is gone, was not closed ({e})"
                        )
                    });
                    assert!(
                        sent.is_empty(),
                        "connection {i}, dealt to worker 0 after its handler had panicked, got \
                         {:?}: worker 0 should be gone",
                        String::from_utf8_lossy(&sent)
                    );
                }
            }
        });
        match outcome {
            Err(panic) => {
                let text = common::panic_text(&*panic);
                assert!(
                    text.contains(PANIC),
                    "Server::run panicked with {text:?}, which does not say what happened: \
                     the handler panicked with {PANIC:?}. Pass the worker's own panic on: \
                     std::panic::resume_unwind with what `join` returned"
                );
            }
            Ok(Err(error)) => assert!(
                error.to_string().contains(PANIC),
                "Server::run returned the error {error:?}, which does not say what happened: \
                 the handler panicked with {PANIC:?}"
            ),
            Ok(Ok(stats)) => panic!(
                "worker 0's handler panicked ({PANIC:?}), and Server::run returned \
                 Ok({stats:?}) as if nothing had happened. A worker's panic must reach run's \
                 caller: std::panic::resume_unwind with what `join` returned (or an error \
                 that says so), not default stats"
            ),
        }
    });
}

/// A worker decides whether it has room for a connection when it takes it from its queue,
/// from its own count. Worker 0 is blocked (its handler blocks its thread) while a
/// connection waits in its queue; the one connection it has closes as soon as it is back,
/// before it takes the next one: so it has room, and serves it.
#[test]
fn a_worker_decides_the_limit_when_it_takes_a_connection() {
    watched(|| {
        let probe = Probe::default();
        let limited = Config {
            max_connections: 1,
            ..config(2)
        };
        let stats = serve(limited, &probe, |addr, _| {
            let mut blocking = connect(addr); // connection 0: worker 0, closed after its reply
            blocking
                .send(b"GET /block HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
                .unwrap();
            assert_eq!(probe.started(), (0, "/block"));
            let unblock = Unblock(&probe);
            let mut full = connect(addr); // connection 1: worker 1, which is full now
            assert_eq!(full.get("/").text(), "worker 1");
            let mut queued = connect(addr); // connection 2: in worker 0's queue
            queued.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            let mut over = connect(addr); // connection 3: worker 1, over its limit
            over.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            let reply = over.read_reply().unwrap_or_else(|e| {
                panic!("worker 1 is full: connection 3 should get a 503 ({e})")
            });
            assert_eq!(reply.status, 503, "worker 1 is full");
            // The acceptor has dealt connection 2 to worker 0, which is still blocked.
            drop(unblock);
            assert_eq!(blocking.read_reply().unwrap().text(), "unblocked");
            blocking
                .wait_closed()
                .expect("closed after a request that says `connection: close`");
            let reply = queued.read_reply().unwrap_or_else(|e| {
                panic!(
                    "connection 2, in worker 0's queue, got no answer once worker 0 was back ({e})"
                )
            });
            assert_eq!(
                reply.status, 200,
                "connection 2 waited in worker 0's queue while worker 0 was blocked. When worker \
                 0 took it, its one connection had closed, so it had room and should have \
                 served it. Is the limit decided somewhere else than in the worker (by the \
                 acceptor, say, from what it knew when it dealt the connection)? Each worker \
                 counts its own open connections, and decides when it takes one"
            );
        });
        assert_eq!(
            stats,
            vec![
                WorkerStats {
                    connections: 2,
                    requests: 2,
                    rejected: 0,
                },
                WorkerStats {
                    connections: 2,
                    requests: 1,
                    rejected: 1,
                },
            ],
            "what each worker counted"
        );
    });
}

/// A request whose head is only half there when the server stops is read to its end and
/// answered (shutdown finishes what is in flight), and counted: `run` returns the stats of a
/// worker once all of its connections are done, not when it stops taking new ones.
#[test]
fn a_request_finished_during_shutdown_is_counted() {
    watched(|| {
        let probe = Probe::default();
        let stats = serve(config(1), &probe, |addr, stop| {
            let mut late = connect(addr);
            late.send(b"GET / HTTP/1.1\r\n").unwrap();
            let mut idle = connect(addr);
            // Answered after the worker has read the first bytes of `late`.
            assert_eq!(idle.get("/").status, 200);
            stop.now();
            idle.wait_closed()
                .expect("after shutdown, an idle connection should be closed at once");
            // The worker is stopping. Now the rest of the head arrives.
            late.send(b"host: t\r\n\r\n").unwrap();
            let reply = late.read_reply().unwrap_or_else(|e| {
                panic!(
                    "a request whose head was half there when the server stopped got no answer \
                     ({e}): shutdown finishes what is in flight"
                )
            });
            assert_eq!(reply.status, 200);
            late.wait_closed()
                .expect("after its last reply, the connection should close");
        });
        assert_eq!(
            stats,
            vec![WorkerStats {
                connections: 2,
                requests: 2,
                rejected: 0,
            }],
            "the request answered while the worker was stopping counts too. Does the worker \
             take its stats before the scope has waited for every connection (as the value of \
             the scope's body, say)? Take them once the scope's `.await` has returned"
        );
    });
}

/// Connections still in a worker's queue when the server stops are stopped like the
/// others: worker 0 is blocked while a silent client waits in its queue and the server
/// stops; once worker 0 is back it takes that connection, and must close it at once, not
/// wait for its header timeout. A stop signal stays given: a connection that starts
/// waiting for it afterwards hears it at once.
#[test]
fn connections_still_queued_at_shutdown_are_stopped() {
    watched(|| {
        let probe = Probe::default();
        let stats = serve(config(2), &probe, |addr, stop| {
            let mut blocking = connect(addr); // connection 0: worker 0
            blocking
                .send(b"GET /block HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            assert_eq!(probe.started(), (0, "/block"));
            let unblock = Unblock(&probe);
            let mut idle = vec![connect(addr)]; // connection 1: worker 1
            assert_eq!(idle[0].get("/").text(), "worker 1");
            let mut silent = connect(addr); // connection 2: in worker 0's queue
            idle.push(connect(addr)); // connection 3: worker 1
            assert_eq!(idle[1].get("/").text(), "worker 1");
            // The acceptor has dealt connection 2.
            stop.now();
            for client in &mut idle {
                client
                    .wait_closed()
                    .expect("after shutdown, an idle connection should be closed at once");
            }
            // Worker 1 has stopped, so the acceptor has dropped its senders: worker 0 will
            // find its queue closed once it has taken connection 2.
            drop(unblock);
            assert_eq!(blocking.read_reply().unwrap().text(), "unblocked");
            blocking
                .wait_closed()
                .expect("after its last reply, the connection should close");
            silent.wait_closed().unwrap_or_else(|e| {
                panic!(
                    "connection 2 was still in worker 0's queue when the server stopped, and \
                     it was still open {PROMPT:?} after worker 0 was back ({e}): it was never \
                     told to stop, so it waits for its header timeout. A stop signal must stay \
                     given: tokio's `Notify::notify_waiters` wakes only the futures already \
                     waiting, and a connection that starts waiting afterwards (a `notified()` \
                     made at its first poll) never hears it. The given `Stop` stays stopped: \
                     `stop.wait()` completes at once after `stop.stop()`"
                )
            });
        });
        assert_eq!(
            stats,
            vec![
                WorkerStats {
                    connections: 2,
                    requests: 1,
                    rejected: 0,
                },
                WorkerStats {
                    connections: 2,
                    requests: 2,
                    rejected: 0,
                },
            ],
            "what each worker counted"
        );
    });
}

/// While accepts fail (the process is out of file descriptors, say), the acceptor waits a
/// little before it tries again (the solution 10 ms, and it says so on stderr) rather than
/// spin on an accept that fails again at once. `fail_accepts(usize::MAX)` makes every
/// accept fail while the client's connection stays queued: the client is never served,
/// the acceptor's thread sleeps between tries (watched through Linux's /proc), and
/// `shutdown` still stops the server.
#[test]
fn failing_accepts_are_retried_after_a_pause() {
    watched(|| {
        let probe = Probe::default();
        let server = bind(config(1)).fail_accepts(usize::MAX);
        let stats = serve_server(server, &probe, |addr, stop| {
            let acceptor = probe.acceptor_started();
            let mut client = connect(addr);
            client.send(b"GET / HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            // A thread that pauses goes to sleep once per try; one that spins, never (the
            // OS counts its sleeps: load on the machine makes it wait for a core, which is
            // not a sleep).
            let before = acceptor.and_then(|a| a.sleeps());
            std::thread::sleep(Duration::from_millis(200));
            if let (Some(before), Some(after)) = (before, acceptor.and_then(|a| a.sleeps())) {
                let slept = after - before;
                assert!(
                    slept >= 3,
                    "every accept failed, and in 200 ms the acceptor went to sleep {slept} \
                     times: it tries again at once, and spins on accepts that fail while the \
                     process is out of file descriptors. Say so on stderr, and wait a little \
                     (10 ms, say) before you accept again"
                );
            }
            client.stream().set_nonblocking(true).unwrap();
            let answer = client.stream().read(&mut [0; 512]);
            client.stream().set_nonblocking(false).unwrap();
            match answer {
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Ok(n) if n > 0 => panic!(
                    "the client was answered, though every accept was made to fail \
                     (`Server::fail_accepts(usize::MAX)`): the acceptor takes its connections \
                     around the given `Listening::listen` and `Listener::accept`, where the \
                     tests make accepts fail. Accept through them, as the starter does"
                ),
                _ => panic!(
                    "the client's connection was closed while every accept failed: did the \
                     acceptor stop at a failed accept (`?`)? A failed accept is not the end of \
                     the server: pause, and accept again"
                ),
            }
            stop.now();
            client.wait_closed().unwrap_or_else(|e| {
                panic!(
                    "the server did not stop: the connection it never accepted was still open \
                     {PROMPT:?} after `shutdown` ({e}). Does the acceptor poll `shutdown` \
                     first (`biased;`, shutdown before accept)? An accept that keeps failing \
                     (or a stream of connections) is always ready, and starves a `shutdown` \
                     polled after it"
                )
            });
        });
        assert_eq!(
            stats,
            vec![WorkerStats::default()],
            "no connection was accepted, so none was dealt"
        );
    });
}
