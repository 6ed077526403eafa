//! Bad input for lab 19's server: malformed requests, oversized heads, bodies longer or
//! slower than they said, clients that stop halfway or never read. The server answers
//! 400/408/413/431 or closes the connection within a bounded time, keeps serving
//! well-behaved clients meanwhile, never panics, and shuts down cleanly afterwards.
//!
//! Timeouts here are real time (the sockets are real), so they are short (300 ms) and
//! every check only waits for an event: up to 2 s (`common::PROMPT`) for what a correct
//! server does at once or within 600 ms, up to 10 s where it waits for a 1 s timeout. No
//! test measures time.

mod common;

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::time::Duration;

use common::{Client, IO_LIMIT, Probe, config, connect, serve, serve_stopping_within, watched};
use tpc_server::Config;

/// The one timeout a test waits for; the others stay long, so that no well-behaved
/// request can run into a short one on a busy machine.
const SHORT: Duration = Duration::from_millis(300);

/// A request line hyper cannot parse: 400, then the connection closes.
#[test]
fn a_malformed_request_line_gets_400() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            for garbage in [
                &b"GARBAGE\r\n\r\n"[..],
                b"GET / HTTP/9.9\r\n\r\n",
                b"GET /\x7f HTTP/1.1\r\n\r\n",
            ] {
                let mut client = connect(addr);
                client.send(garbage).unwrap();
                let reply = client.read_reply().expect("a reply to a malformed request");
                assert_eq!(reply.status, 400, "{:?}", String::from_utf8_lossy(garbage));
                client.wait_closed().expect("closed after 400");
            }
            assert_eq!(connect(addr).get("/").status, 200);
        });
    });
}

fn with_headers(n: usize) -> Vec<u8> {
    let mut request = b"GET / HTTP/1.1\r\nhost: t\r\n".to_vec();
    for i in 1..n {
        request.extend_from_slice(format!("x-header-{i}: {i}\r\n").as_bytes());
    }
    request.extend_from_slice(b"\r\n");
    request
}

/// hyper's default limit is 100 headers: 100 are served, 101 get 431 and a close.
#[test]
fn more_than_100_headers_get_431() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            let mut client = connect(addr);
            client.send(&with_headers(100)).unwrap();
            assert_eq!(client.read_reply().unwrap().status, 200);

            let mut client = connect(addr);
            client.send(&with_headers(101)).unwrap();
            assert_eq!(client.read_reply().unwrap().status, 431);
            client.wait_closed().expect("closed after 431");
        });
    });
}

/// A head over `max_header_size`: 431 and a close. Just over the limit, hyper reads it all
/// and the 431 arrives; far over it, hyper stops reading, and the bytes it never read may
/// turn the close into a reset that overtakes the 431, so a bare close is accepted there.
/// Two workers: the connections alternate between them, and each applies the limit.
#[test]
fn a_huge_head_gets_431_or_a_close() {
    watched(|| {
        let probe = Probe::default();
        let small = Config {
            max_header_size: 4096,
            ..config(2)
        };
        serve(small, &probe, |addr, _| {
            let head = |size: usize| {
                let mut request = b"GET / HTTP/1.1\r\nhost: t\r\nx-big: ".to_vec();
                request.resize(size - 4, b'a');
                request.extend_from_slice(b"\r\n\r\n");
                request
            };
            for worker in 0..2 {
                let mut client = connect(addr); // worker 0, then worker 1
                client.send(&head(4096)).unwrap();
                assert_eq!(
                    client.read_reply().unwrap().status,
                    200,
                    "worker {worker}: 4096 bytes are allowed"
                );
            }
            for worker in 0..2 {
                let mut client = connect(addr);
                client.send(&head(4097)).unwrap();
                assert_eq!(
                    client.read_reply().unwrap().status,
                    431,
                    "worker {worker}: a head of 4097 bytes is over max_header_size (4096). Does \
                     every worker serve with the Config that `run` was given?"
                );
                client.wait_closed().expect("closed after 431");
            }

            let mut client = connect(addr);
            let _ = client.send(&head(1 << 20)); // may fail once the server has closed
            let sent = client
                .wait_closed()
                .expect("a huge head closes the connection");
            assert!(
                sent.is_empty() || sent.starts_with(b"HTTP/1.1 431"),
                "431 or a plain close, got {:?}",
                String::from_utf8_lossy(&sent[..sent.len().min(200)])
            );
            assert_eq!(connect(addr).get("/").status, 200);
        });
    });
}

/// hyper reads exactly `Content-Length` bytes of body. What follows is the next request:
/// garbage gets 400 and a close, a valid request is served (pipelining).
#[test]
fn bytes_after_the_content_length_are_the_next_request() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            let head = "POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 5\r\n\r\n";
            let mut client = connect(addr);
            client
                .send(format!("{head}helloGARBAGE\r\n\r\n").as_bytes())
                .unwrap();
            assert_eq!(client.read_reply().unwrap().text(), "5 bytes");
            assert_eq!(client.read_reply().unwrap().status, 400);
            client.wait_closed().expect("closed after 400");

            let mut client = connect(addr);
            client
                .send(format!("{head}helloGET / HTTP/1.1\r\nhost: t\r\n\r\n").as_bytes())
                .unwrap();
            assert_eq!(client.read_reply().unwrap().text(), "5 bytes");
            assert_eq!(client.read_reply().unwrap().text(), "worker 0");
        });
    });
}

/// A client that stops in the middle of its headers is closed after `header_timeout`,
/// without a reply (hyper applies that timeout only if it has a timer). One such client on
/// each of two workers: each applies the timeout.
#[test]
fn a_client_that_stops_mid_headers_is_closed() {
    watched(|| {
        let probe = Probe::default();
        serve(
            Config {
                header_timeout: SHORT,
                ..config(2)
            },
            &probe,
            |addr, _| {
                let mut clients: Vec<Client> = (0..2).map(|_| connect(addr)).collect();
                for client in &mut clients {
                    client.send(b"GET / HTTP/1.1\r\nhost: t\r\nx-half").unwrap();
                }
                for (worker, client) in clients.iter_mut().enumerate() {
                    let sent = client.wait_closed().unwrap_or_else(|e| {
                        panic!(
                            "worker {worker}: a client stuck in its headers must be closed \
                             (header_timeout) ({e}). Does every worker serve with the Config \
                             that `run` was given?"
                        )
                    });
                    assert!(sent.is_empty(), "no reply expected, got {sent:?}");
                }
            },
        );
    });
}

/// A client over the limit that never sends a byte is closed after `header_timeout`, as
/// any other: Busy's connections have the same timeouts. The one served connection has a
/// request in flight meanwhile, so the silent one is over the limit for as long as it waits.
#[test]
fn a_silent_client_over_the_limit_is_closed() {
    watched(|| {
        let probe = Probe::default();
        let limited = Config {
            max_connections: 1,
            header_timeout: SHORT,
            ..config(1)
        };
        let stats = serve(limited, &probe, |addr, _| {
            let mut busy = connect(addr);
            busy.send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            assert_eq!(probe.started(), (0, "/wait"));
            let mut silent = connect(addr); // over the limit
            let sent = silent.wait_closed().unwrap_or_else(|e| {
                panic!(
                    "a client over the limit that never sent a byte was still connected \
                     {:?} later, with a header timeout of {SHORT:?} ({e}). Busy's connections \
                     are served like every other, with the Config's timeouts: otherwise a \
                     silent client over the limit holds its socket for as long as it likes",
                    common::PROMPT
                )
            });
            assert!(sent.is_empty(), "no reply expected, got {sent:?}");
            probe.release(1);
            assert_eq!(busy.read_reply().unwrap().text(), "released");
        });
        let counted = tpc_server::WorkerStats {
            connections: 2,
            requests: 1,
            rejected: 1,
        };
        assert_eq!(stats, vec![counted], "what the worker counted");
    });
}

/// The header timeout is for a head that does not come. A handler that takes longer than
/// it, on a connection whose head came long ago, still has its reply written: a timeout
/// around the whole connection would cut every slow request off at `header_timeout`.
#[test]
fn a_handler_may_outlast_the_header_timeout() {
    watched(|| {
        let probe = Probe::default();
        let short = Config {
            header_timeout: SHORT,
            ..config(1)
        };
        serve(short, &probe, |addr, _| {
            let mut slow = connect(addr);
            slow.send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n").unwrap();
            assert_eq!(probe.started(), (0, "/wait"));
            // Four header timeouts go by while the handler waits.
            std::thread::sleep(4 * SHORT);
            probe.release(1);
            let reply = slow.read_reply().unwrap_or_else(|e| {
                panic!(
                    "a handler that ran {:?}, longer than the header timeout ({SHORT:?}), had \
                     its connection closed under it ({e}). The header timeout is for a \
                     request's head that does not come; a timeout around the whole connection \
                     cuts off every request that takes longer",
                    4 * SHORT
                )
            });
            assert_eq!(reply.text(), "released");
        });
    });
}

/// A client that stops in the middle of its body: hyper has no body timeout, so the
/// server's own (in `Body::bytes`) answers 408 and closes. One such client on each of two
/// workers: each applies the timeout.
#[test]
fn a_client_that_stops_mid_body_gets_408() {
    watched(|| {
        let probe = Probe::default();
        serve(
            Config {
                body_timeout: SHORT,
                ..config(2)
            },
            &probe,
            |addr, _| {
                let mut clients: Vec<Client> = (0..2).map(|_| connect(addr)).collect();
                for client in &mut clients {
                    client
                        .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 10\r\n\r\nabc")
                        .unwrap();
                }
                for (worker, client) in clients.iter_mut().enumerate() {
                    let reply = client.read_reply().unwrap_or_else(|e| {
                        panic!(
                            "worker {worker}: a client stuck in its body gets an answer \
                             (body_timeout) ({e}). Does every worker serve with the Config \
                             that `run` was given?"
                        )
                    });
                    assert_eq!(reply.status, 408, "worker {worker}");
                    client.wait_closed().expect("closed after 408");
                }
            },
        );
    });
}

/// A body larger than `max_body` is refused before it is read: 413. On each of two
/// workers.
#[test]
fn a_body_over_the_limit_gets_413() {
    watched(|| {
        let probe = Probe::default();
        let small = Config {
            max_body: 1000,
            ..config(2)
        };
        serve(small, &probe, |addr, _| {
            for worker in 0..2 {
                let mut client = connect(addr); // connection i: worker i
                client
                    .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 5000\r\n\r\n")
                    .unwrap();
                assert_eq!(
                    client.read_reply().unwrap().status,
                    413,
                    "worker {worker}: a body of 5000 bytes is over max_body (1000). Does every \
                     worker serve with the Config that `run` was given?"
                );
                client.wait_closed().expect("closed after 413");
            }
            assert_eq!(
                connect(addr).post("/upload", &[7; 1000]).text(),
                "1000 bytes"
            );
        });
    });
}

/// A client that never reads its (large) reply: the server's write stalls, gives up after
/// `write_timeout`, and shutdown does not wait for that client forever.
#[test]
fn a_client_that_never_reads_does_not_hold_shutdown() {
    watched(|| {
        let probe = Probe::default();
        let mut kept = None;
        serve(
            Config {
                write_timeout: SHORT,
                ..config(1)
            },
            &probe,
            |addr, stop| {
                let mut sleeper = connect(addr);
                sleeper
                    .send(b"GET /big HTTP/1.1\r\nhost: t\r\n\r\n")
                    .unwrap();
                // One byte, to know the reply is being written; then never read again.
                sleeper.stream().read_exact(&mut [0]).unwrap();
                assert_eq!(connect(addr).get("/").status, 200);
                stop.now();
                // Leaving this closure waits for Server::run to return, `sleeper` still open.
                kept = Some(sleeper);
            },
        );
        drop(kept);
    });
}

/// All of the above at once, with long timeouts: a well-behaved client is served while
/// the bad ones hold their connections; when they leave, shutdown is clean.
#[test]
fn bad_clients_do_not_stop_good_ones() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            let mut mid_headers = connect(addr);
            mid_headers.send(b"GET / HTTP/1.1\r\nhost: t\r\n").unwrap();
            let mut mid_body = connect(addr);
            mid_body
                .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 10\r\n\r\nabc")
                .unwrap();
            assert_eq!(probe.started(), (0, "/upload"));
            let mut sleeper = connect(addr);
            sleeper
                .send(b"GET /big HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            sleeper.stream().read_exact(&mut [0]).unwrap();
            let mut garbage = connect(addr);
            garbage.send(b"GARBAGE\r\n\r\n").unwrap();

            for _ in 0..3 {
                let mut good = connect(addr);
                assert_eq!(good.get("/").text(), "worker 0");
                assert_eq!(good.post("/upload", b"hello").text(), "5 bytes");
            }
            assert_eq!(garbage.read_reply().unwrap().status, 400);
            // The bad clients leave; the server lets go of them and stops cleanly.
        });
    });
}

/// Slowloris: a client that sends its head a byte at a time, each byte long before
/// `header_timeout` is up, is closed all the same: the timeout bounds the whole head, not
/// the gap between two reads.
#[test]
fn a_head_trickled_byte_by_byte_is_closed() {
    watched(|| {
        let probe = Probe::default();
        let config = Config {
            header_timeout: SHORT,
            ..config(1)
        };
        serve(config, &probe, |addr, _| {
            let mut slow = connect(addr);
            let mut trickle = slow.stream().try_clone().unwrap();
            let stop = AtomicBool::new(false);
            std::thread::scope(|s| {
                s.spawn(|| {
                    // A head that never ends: a byte every 10 ms, 2,000 bytes at most.
                    let head = b"GET / HTTP/1.1\r\nhost: t\r\nx-slow: ";
                    let bytes = head.iter().chain(std::iter::repeat(&b'a')).take(2000);
                    for byte in bytes {
                        if stop.load(SeqCst) || trickle.write_all(&[*byte]).is_err() {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                });
                let closed = slow.wait_closed();
                stop.store(true, SeqCst);
                let sent = closed.expect(
                    "a head that arrives a byte at a time, never finished, must be closed \
                     (header_timeout bounds the whole head, not each read)",
                );
                assert!(sent.is_empty(), "no reply expected, got {sent:?}");
            });
        });
    });
}

/// A connection that goes quiet after a request, and one that never sends a byte, are
/// closed after `header_timeout`: idle sockets are not kept forever.
#[test]
fn idle_connections_are_closed() {
    watched(|| {
        let probe = Probe::default();
        // Longer than SHORT: the first request below must not run into it on a busy machine.
        let config = Config {
            header_timeout: Duration::from_secs(1),
            ..config(1)
        };
        serve(config, &probe, |addr, _| {
            let mut idle = Client::connect(addr);
            assert_eq!(idle.get("/").status, 200);
            let mut silent = Client::connect(addr);
            for (what, client) in [("after a request", &mut idle), ("silent", &mut silent)] {
                let sent = client.wait_closed().unwrap_or_else(|e| {
                    panic!("an idle connection ({what}) must be closed after header_timeout ({e})")
                });
                assert!(sent.is_empty(), "{what}: no reply expected, got {sent:?}");
            }
        });
    });
}

/// Garbage in the middle of pipelined requests: the requests before it are answered, in
/// order, then 400 and a close; nothing after the garbage is answered.
#[test]
fn pipelined_garbage_gets_400_after_the_good_requests() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            let good = "GET /hits HTTP/1.1\r\nhost: t\r\n\r\n";
            let mut client = connect(addr);
            client
                .send(format!("{good}{good}{good}NOT HTTP AT ALL\r\n\r\n{good}").as_bytes())
                .unwrap();
            for hit in 1..=3 {
                let reply = client.read_reply().expect("a reply to each good request");
                assert_eq!((reply.status, reply.text()), (200, hit.to_string()));
            }
            assert_eq!(client.read_reply().unwrap().status, 400);
            let rest = client.wait_closed().expect("closed after 400");
            assert!(rest.is_empty(), "nothing after the 400, got {rest:?}");
            assert_eq!(connect(addr).get("/hits").text(), "4");
        });
    });
}

/// Clients that leave halfway: in their head, in their body, and while their handler
/// runs. The server lets go of each (the handler of the last one is dropped: nobody is
/// waiting for its answer), keeps serving, and stops cleanly.
#[test]
fn clients_that_leave_halfway_are_let_go() {
    watched(|| {
        let probe = Probe::default();
        serve(config(1), &probe, |addr, _| {
            let mut mid_head = connect(addr);
            mid_head
                .send(b"GET / HTTP/1.1\r\nhost: t\r\nx-half")
                .unwrap();
            let mut mid_body = connect(addr);
            mid_body
                .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 10\r\n\r\nabc")
                .unwrap();
            assert_eq!(probe.started(), (0, "/upload"));
            let mut waiting = connect(addr);
            waiting
                .send(b"GET /wait HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            assert_eq!(probe.started(), (0, "/wait"));
            drop((mid_head, mid_body, waiting));
            assert!(
                probe.live_down_to(0),
                "a client left while its handler ran: the handler should be dropped, not \
                 kept running for nobody"
            );
            assert_eq!(connect(addr).get("/").status, 200);
        });
    });
}

/// Shutdown with bad clients still connected: one in its head, one in its body, one that
/// never reads, one idle after a request, one that never sent a byte, and one over the
/// limit. Each is bounded by a timeout, so `run` returns without waiting for them to
/// leave; the one in its body gets 408 (or a plain close).
#[test]
fn shutdown_does_not_wait_for_bad_clients() {
    watched(|| {
        let probe = Probe::default();
        let config = Config {
            max_connections: 5,
            header_timeout: Duration::from_secs(1),
            body_timeout: SHORT,
            write_timeout: SHORT,
            ..config(1)
        };
        let mut kept = Vec::new();
        // The clients left connected are closed by timeouts of up to 2 x 1 s.
        serve_stopping_within(IO_LIMIT, config, &probe, |addr, stop| {
            let mut idle = connect(addr);
            assert_eq!(idle.get("/").status, 200);
            let mut mid_head = connect(addr);
            mid_head
                .send(b"GET / HTTP/1.1\r\nhost: t\r\nx-half")
                .unwrap();
            let mut mid_body = connect(addr);
            mid_body
                .send(b"POST /upload HTTP/1.1\r\nhost: t\r\ncontent-length: 10\r\n\r\nabc")
                .unwrap();
            assert_eq!(probe.started(), (0, "/upload"));
            let mut sleeper = connect(addr);
            sleeper
                .send(b"GET /big HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            sleeper.stream().read_exact(&mut [0]).unwrap();
            let silent = connect(addr);
            let over = connect(addr); // the sixth: over the limit of 5
            stop.now();
            let sent = mid_body.wait_closed().expect(
                "a client stuck in its body at shutdown is closed (body_timeout), not waited for",
            );
            assert!(
                sent.is_empty() || sent.starts_with(b"HTTP/1.1 408"),
                "408 or a plain close, got {:?}",
                String::from_utf8_lossy(&sent)
            );
            // Leaving this closure waits for Server::run to return, the others still open.
            kept.extend([idle, mid_head, sleeper, silent, over]);
        });
        drop(kept);
    });
}
