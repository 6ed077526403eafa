//! labs-room: the room board's server, on the instructor's machine. `cargo labs room`
//! builds it, hands it the course's labs and the day's schedule on stdin (one line of
//! JSON), and it serves on the local network:
//!
//!   GET  /                the page (with /room.css and /room.js): a row per attendee,
//!                         a column per lab of the day, what the room is hitting now
//!   GET  /board?since=N   the board, as soon as it differs from version N (or after 20 s)
//!   GET  /api/room        the same as JSON
//!   POST /report          an attendee's runner reports where their labs stand
//!
//! One thread, one tokio `LocalRuntime`, the room in an `Rc<RefCell<…>>`: the book's own
//! way, so no `Arc`, no lock, nothing `Send`. Nothing is written anywhere: the board lives
//! in memory until the runner that started it stops (its stdin closes) or Ctrl-C.
//!
//! Hostile input: hyper's limits on a request's head and its header timeout (with a
//! timer, or it would wait for ever), our own body size limit and body timeout (hyper has
//! none), caps on open connections and on a connection's lifetime, and the caps on what
//! the room keeps (state.rs). Every refusal is a 4xx or 503 with one line saying why.

mod page;
mod state;

use std::cell::{Cell, RefCell};
use std::convert::Infallible;
use std::io::{BufRead, Read};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::pin::pin;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::{Builder, LocalOptions};
use tokio::sync::Notify;

use state::{Room, Shown, Spec};

/// The largest report body; a runner's report is well under 2 KB.
const MAX_BODY: usize = 16 * 1024;
/// The largest request head (request line and headers): 431 beyond it. hyper's smallest
/// allowed buffer.
const MAX_HEAD: usize = 8 * 1024;
/// Open connections at most; one more gets a 503 and is closed.
const MAX_CONNECTIONS: usize = 256;
/// A connection that has not sent a whole request head within this time (a client that
/// stops halfway, or an idle keep-alive one) is closed.
const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// A report's body must arrive within this time (hyper has no body timeout): 408.
const BODY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long `/board?since=N` waits for a change before it answers anyway.
const LONG_POLL: Duration = Duration::from_secs(20);
/// A connection is asked to close after this time, and dropped a few seconds later: a
/// client that never reads its answer holds a place no longer than that.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(120);
const GRACE: Duration = Duration::from_secs(5);

const USAGE: &str = "usage: labs-room [--bind ADDR] [--port P] [--code CODE]   (the spec as one JSON line on stdin; `cargo labs room` does all this)";

struct Args {
    bind: IpAddr,
    port: u16,
    code: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        bind: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        port: 7878,
        code: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--bind" => {
                let v = value()?;
                args.bind = v
                    .parse()
                    .map_err(|_| format!("--bind: `{v}` is not an IP address"))?;
            }
            "--port" => {
                let v = value()?;
                args.port = v
                    .parse()
                    .map_err(|_| format!("--port: `{v}` is not a port number"))?;
            }
            "--code" => {
                let v = value()?;
                if v.is_empty() || v.len() > state::MAX_CODE || v.chars().any(char::is_whitespace) {
                    return Err(format!(
                        "--code: 1 to {} characters without spaces",
                        state::MAX_CODE
                    ));
                }
                args.code = Some(v);
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    // The spec: one line. Then stdin stays open as a lifeline: when the runner that
    // started us ends, the pipe closes, and so does the room.
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .take(4 << 20)
        .read_line(&mut line)
        .map_err(|e| format!("reading the spec from stdin: {e}"))?;
    let spec = Spec::parse(&line)?;
    std::thread::spawn(|| {
        let mut buf = [0u8; 256];
        let mut stdin = std::io::stdin();
        while matches!(stdin.read(&mut buf), Ok(n) if n > 0) {}
        say("The room is closed (the runner that started it has stopped).");
        std::process::exit(0);
    });
    let runtime = Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .map_err(|e| format!("starting the runtime: {e}"))?;
    runtime.block_on(serve(args, spec))
}

/// A line for the instructor. A closed stdout is no reason to close the room.
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{line}");
}

/// Everything the connections share, on this one thread.
struct App {
    room: RefCell<Room>,
    /// Woken whenever the board changes (the long polls wait on it).
    changed: Notify,
    code: Option<String>,
    port: u16,
    /// This machine's address on the network, for the join command.
    lan: Option<IpAddr>,
    open: Cell<usize>,
}

/// Counts a connection as open while it lives.
struct Open(Rc<App>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.set(self.0.open.get() - 1);
    }
}

async fn serve(args: Args, spec: Spec) -> Result<(), String> {
    let listener = TcpListener::bind((args.bind, args.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", args.bind, args.port))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let lan = if args.bind.is_unspecified() {
        lan_address()
    } else {
        Some(args.bind)
    };
    let day = day_title(&spec);
    let app = Rc::new(App {
        room: RefCell::new(Room::new(spec, args.code.clone())),
        changed: Notify::new(),
        code: args.code,
        port,
        lan,
        open: Cell::new(0),
    });
    let here = if args.bind.is_unspecified() || args.bind.is_loopback() {
        format!("http://127.0.0.1:{port}/")
    } else {
        format!("http://{}/", SocketAddr::new(args.bind, port))
    };
    say(&format!(
        "The room is open: {here} on this machine ({day}). Put it on the projector."
    ));
    if args.bind.is_loopback() {
        say(&format!(
            "It listens on {} only: no other machine can reach it (leave out --bind to open it to the network).",
            args.bind
        ));
    }
    say(&format!(
        "Attendees run this once, in labs/:  {}",
        app.join(true, None)
    ));
    say(
        "What travels: each lab's status, failing test names and error codes; never source code or paths.",
    );
    say("Ctrl-C closes the room. It keeps nothing: the board lives in memory.");

    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, say: not the end of the room.
                say(&format!("accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if app.open.get() >= MAX_CONNECTIONS {
            // A fresh socket's send buffer is empty: this write does not wait.
            let _ = stream.try_write(
                b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
                  content-length: 37\r\nconnection: close\r\n\r\nThe room has too many open connections",
            );
            continue;
        }
        app.open.set(app.open.get() + 1);
        let open = Open(app.clone());
        tokio::task::spawn_local(connection(open, stream, peer));
    }
}

async fn connection(open: Open, stream: TcpStream, peer: SocketAddr) {
    let app = open.0.clone();
    let service = service_fn(move |request| {
        let app = app.clone();
        async move { Ok::<_, Infallible>(secure(handle(&app, peer, request).await)) }
    });
    let mut conn = pin!(
        http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .max_buf_size(MAX_HEAD)
            .serve_connection(TokioIo::new(stream), service)
    );
    tokio::select! {
        _ = conn.as_mut() => {}
        () = tokio::time::sleep(CONNECTION_LIFETIME) => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(GRACE, conn).await;
        }
    }
    drop(open);
}

type Reply = Response<Full<Bytes>>;

fn reply(status: StatusCode, kind: &'static str, body: impl Into<Bytes>) -> Reply {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    r
}

fn text(status: StatusCode, message: impl Into<String>) -> Reply {
    let mut message = message.into();
    message.push('\n');
    reply(status, "text/plain; charset=utf-8", message)
}

fn json(value: serde_json::Value) -> Reply {
    reply(StatusCode::OK, "application/json", value.to_string())
}

/// What every answer carries: nothing from elsewhere, no inline script, no caching.
fn secure(mut r: Reply) -> Reply {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

async fn handle(app: &App, peer: SocketAddr, request: Request<Incoming>) -> Reply {
    let method = request.method().clone();
    let read = method == Method::GET || method == Method::HEAD;
    match request.uri().path() {
        "/" if read => {
            let host = request
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(str::to_owned);
            app.page(peer, host.as_deref())
        }
        "/room.css" if read => reply(StatusCode::OK, "text/css; charset=utf-8", page::STYLE),
        "/room.js" if read => reply(
            StatusCode::OK,
            "text/javascript; charset=utf-8",
            page::SCRIPT,
        ),
        "/board" if read => {
            let since = request.uri().query().and_then(since);
            app.board(since).await
        }
        "/api/room" if read => app.api(),
        "/report" if method == Method::POST => app.report(request).await,
        "/" | "/room.css" | "/room.js" | "/board" | "/api/room" => {
            allow(text(StatusCode::METHOD_NOT_ALLOWED, "use GET"), "GET, HEAD")
        }
        "/report" => allow(
            text(
                StatusCode::METHOD_NOT_ALLOWED,
                "reports are POSTed (cargo labs does it)",
            ),
            "POST",
        ),
        _ => text(StatusCode::NOT_FOUND, "no such page in the room"),
    }
}

fn allow(mut r: Reply, methods: &'static str) -> Reply {
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(methods));
    r
}

/// `since=N` in a query string.
fn since(query: &str) -> Option<u64> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("since="))
        .and_then(|n| n.parse().ok())
}

impl App {
    /// The command attendees run. The code is shown on this machine only (where the
    /// instructor, and the projector, are); others see where to get it.
    fn join(&self, local: bool, host: Option<&str>) -> String {
        let address = match (host, self.lan) {
            (Some(host), _) => host.to_owned(),
            (None, Some(ip)) => SocketAddr::new(ip, self.port).to_string(),
            (None, None) => format!("THIS-MACHINE:{}", self.port),
        };
        let code = match (&self.code, local) {
            (Some(code), true) => format!(" --code {code}"),
            (Some(_), false) => " --code (ask the instructor)".to_owned(),
            (None, _) => String::new(),
        };
        format!("cargo labs --room http://{address} --name \"Your name\"{code}")
    }

    fn page(&self, peer: SocketAddr, host: Option<&str>) -> Reply {
        // The address the browser used, unless that is this machine's loopback (the
        // projector on the instructor's laptop): then the network address.
        let host = host.filter(|h| {
            let name = h.rsplit_once(':').map_or(*h, |(n, _)| n);
            !(name == "localhost" || name.starts_with("127.") || name == "[::1]")
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        });
        let join = self.join(peer.ip().is_loopback(), host);
        let room = self.room.borrow();
        let board = page::board(&room.view(Instant::now()));
        let html = page::page(&board, room.version(), &day_title(&room.spec), &join);
        reply(StatusCode::OK, "text/html; charset=utf-8", html)
    }

    /// The board once it differs from version `since` (at once if it already does), or
    /// after `LONG_POLL` as it is.
    async fn board(&self, since: Option<u64>) -> Reply {
        if since == Some(self.room.borrow().version()) {
            let notified = self.changed.notified();
            // No borrow of the room is held across this await.
            let _ = tokio::time::timeout(LONG_POLL, notified).await;
        }
        let room = self.room.borrow();
        let html = page::board(&room.view(Instant::now()));
        json(json!({ "version": room.version(), "html": html }))
    }

    fn api(&self) -> Reply {
        let room = self.room.borrow();
        let view = room.view(Instant::now());
        let labs: Vec<_> = view
            .columns
            .iter()
            .zip(&view.counts)
            .map(|(lab, c)| {
                json!({"number": lab.number, "title": lab.title, "done": c.done,
                       "working": c.working, "not_started": c.not_started})
            })
            .collect();
        let attendees: Vec<_> = view
            .rows
            .iter()
            .map(|row| {
                let cells: Vec<_> = view
                    .columns
                    .iter()
                    .zip(&row.cells)
                    .map(|(lab, shown)| match shown {
                        Shown::NotStarted => json!({"lab": lab.number, "state": "not-started"}),
                        Shown::Done => json!({"lab": lab.number, "state": "done"}),
                        Shown::Working { report, since } => json!({
                            "lab": lab.number, "state": report.state.name(),
                            "tests": report.tests, "codes": report.codes,
                            "lesson": report.lesson, "since_secs": since.as_secs(),
                        }),
                    })
                    .collect();
                json!({"name": row.name, "seen_secs": row.seen.as_secs(), "cells": cells})
            })
            .collect();
        let issues: Vec<_> = view
            .issues
            .iter()
            .map(|i| json!({"what": i.what, "people": i.people, "page": i.page, "href": i.href}))
            .collect();
        json(
            json!({"version": room.version(), "labs": labs, "attendees": attendees, "issues": issues}),
        )
    }

    async fn report(&self, request: Request<Incoming>) -> Reply {
        if request.body().size_hint().lower() > MAX_BODY as u64 {
            // Its Content-Length says so: refuse before reading it.
            return too_large();
        }
        let read = Limited::new(request.into_body(), MAX_BODY).collect();
        let body = match tokio::time::timeout(BODY_TIMEOUT, read).await {
            Err(_) => {
                return text(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the report did not arrive within {} s",
                        BODY_TIMEOUT.as_secs()
                    ),
                );
            }
            Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => return too_large(),
            Ok(Err(_)) => return text(StatusCode::BAD_REQUEST, "the report broke off"),
            Ok(Ok(body)) => body.to_bytes(),
        };
        let received = self.room.borrow_mut().receive(&body, Instant::now());
        match received {
            Ok(applied) => {
                if applied.changed {
                    self.changed.notify_waiters();
                }
                json(json!({"ok": true, "ignored": applied.ignored}))
            }
            Err(reject) => text(
                StatusCode::from_u16(reject.status).unwrap_or(StatusCode::BAD_REQUEST),
                reject.message,
            ),
        }
    }
}

fn too_large() -> Reply {
    text(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("a report is at most {MAX_BODY} bytes"),
    )
}

/// "labs 09, 11, 14"
fn day_title(spec: &Spec) -> String {
    match spec.day.as_slice() {
        [] => "no labs".to_owned(),
        [one] => format!("lab {one}"),
        many => format!("labs {}", many.join(", ")),
    }
}

/// The address this machine would use on the network. Connecting a UDP socket sends
/// nothing: the OS only chooses the route, to TEST-NET-1 (RFC 5737), which is never
/// reached.
fn lan_address() -> Option<IpAddr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
}
