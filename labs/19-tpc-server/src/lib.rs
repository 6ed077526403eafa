//! Lab 19: a thread-per-core HTTP server.
//!
//! This server works, the way many first versions do: one thread per worker, each with
//! a tokio `LocalRuntime`, and one acceptor dealing connections round-robin. It is also
//! wrong in six ways, and the tests find them all: its `'static` bounds refuse the
//! tests' handlers, which borrow from the test; it moves each `TcpStream` to its worker
//! still registered with the acceptor's reactor; its connections are detached
//! `spawn_local` tasks that shutdown kills in the middle of a request; it shares the
//! workers' counters behind an `Arc<Mutex<_>>`; it has no connection limit; and it tries
//! a failed accept again at once, in silence, spinning while the process is out of file
//! descriptors.
//!
//! Three things it already does right; keep them: the hand-off channels are unbounded, a
//! failed accept does not stop the acceptor, and a worker's panic reaches `run`'s caller.
//! And keep the worker outside tokio's cooperative budget, as it is.
//!
//! Change `run`, `accept`, `worker` (and the hand-off between them). Everything after
//! the line "Given" is hyper plumbing you can use as it is. Task: README.md next to
//! this file; the chapter explains each piece.

use std::cell::{Cell, RefCell};
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker, ready};
use std::thread;
use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::{Builder, LocalOptions};
use tokio::sync::mpsc;
use tokio::time::{Instant, Sleep};

// ANCHOR: api (the book quotes the code from here to the ANCHOR_END line)
/// How the server behaves. Start from `Config::default()` and change what you need.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Worker threads, each with its own runtime. Default: one per available core.
    pub workers: usize,
    /// Open connections one worker serves at most; it answers more with 503.
    pub max_connections: usize,
    /// A connection that waits this long for a request's head (request line and
    /// headers), whether the client is idle or stuck halfway, is closed within one
    /// more such period.
    pub header_timeout: Duration,
    /// A request's body must arrive within this time once a handler reads it.
    pub body_timeout: Duration,
    /// A write that makes no progress for this long closes the connection.
    pub write_timeout: Duration,
    /// The largest body a handler may read (413 beyond it).
    pub max_body: usize,
    /// The largest request head, request line and headers together (431 beyond it).
    /// hyper's own buffer limit (~400 KB) is soft: a read may go past it.
    pub max_header_size: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            workers: thread::available_parallelism().map_or(1, |n| n.get()),
            max_connections: 10_000,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_body: 1 << 20,
            max_header_size: 64 << 10,
        }
    }
}

/// What a handler answers.
pub type Reply = Response<Full<Bytes>>;

/// A reply with a status and a body.
pub fn reply(status: StatusCode, body: impl Into<Bytes>) -> Reply {
    let mut reply = Response::new(Full::new(body.into()));
    *reply.status_mut() = status;
    reply
}

/// The application. Each worker builds its own (see `Server::run`) and keeps it on its
/// thread, so a handler may hold `Rc`, `Cell` and `RefCell` values across `.await`.
pub trait Handler {
    fn call(&self, request: Request<Body>) -> impl Future<Output = Reply>;
}

/// A request body. hyper has no timeout for bodies, so this type adds one (and a size
/// limit): the only way to read it is `bytes`, which gives up after
/// `Config::body_timeout`.
pub struct Body {
    incoming: Incoming,
    timeout: Duration,
    limit: usize,
}

/// Why a body could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// It did not arrive within `Config::body_timeout`: 408.
    TimedOut,
    /// It is longer than `Config::max_body`: 413.
    TooLarge,
    /// The connection failed (the text says how): 400.
    Broken(String),
}

impl Body {
    /// The whole body, within the time and size limits.
    pub async fn bytes(self) -> Result<Bytes, BodyError> {
        if self.incoming.size_hint().lower() > self.limit as u64 {
            return Err(BodyError::TooLarge); // its Content-Length says so: do not wait
        }
        let read = Limited::new(self.incoming, self.limit).collect();
        match tokio::time::timeout(self.timeout, read).await {
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
            Ok(Err(error)) if error.is::<LengthLimitError>() => Err(BodyError::TooLarge),
            Ok(Err(error)) => {
                let mut text = error.to_string();
                let mut source = error.source();
                while let Some(cause) = source {
                    text = format!("{text}: {cause}");
                    source = cause.source();
                }
                Err(BodyError::Broken(text))
            }
            Err(_elapsed) => Err(BodyError::TimedOut),
        }
    }
}

impl BodyError {
    /// The reply for this error; it closes the connection.
    pub fn reply(&self) -> Reply {
        let (status, text) = match self {
            BodyError::TimedOut => (StatusCode::REQUEST_TIMEOUT, "body timed out".to_owned()),
            BodyError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "body too large".to_owned()),
            BodyError::Broken(why) => (StatusCode::BAD_REQUEST, why.clone()),
        };
        let mut reply = reply(status, text);
        reply
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        reply
    }
}

/// What one worker did, returned by `Server::run` once the worker has stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Connections handed to this worker (rejected ones included).
    pub connections: u64,
    /// Requests its handler answered.
    pub requests: u64,
    /// Connections it answered with 503 because it had `max_connections` open.
    pub rejected: u64,
}

/// A bound server, not yet running.
pub struct Server {
    listener: Listening,
    config: Config,
}

impl Server {
    /// Binds the listening socket (so the port is known before `run`).
    pub fn bind(addr: SocketAddr, config: Config) -> io::Result<Server> {
        let listener = std::net::TcpListener::bind(addr)?;
        // tokio's `TcpListener::from_std` wants a non-blocking socket.
        listener.set_nonblocking(true)?;
        let listener = Listening {
            socket: listener,
            failures: 0,
        };
        Ok(Server { listener, config })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.socket.local_addr()
    }

    // ANCHOR: given_fail_accepts (given code: keep it as it is; `cargo labs check` compares it)
    /// For tests: the acceptor's next `n` accepts fail the way accept(2) fails when the
    /// process is out of file descriptors. The connection stays queued meanwhile, and
    /// the first accept after them returns it (see `Listener::accept`).
    pub fn fail_accepts(mut self, n: usize) -> Server {
        self.listener.failures = n;
        self
    }
    // ANCHOR_END: given_fail_accepts
}
// ANCHOR_END: api

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
// ANCHOR: run (the book quotes the code from here to the ANCHOR_END line)
impl Server {
    /// Serves until `shutdown` completes, then returns what every worker did, in worker
    /// order. `handlers(id)` builds worker `id`'s handler on that worker's thread.
    pub fn run<H, F>(
        self,
        handlers: F,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<Vec<WorkerStats>>
    where
        H: Handler + 'static,
        F: Fn(usize) -> H + Send + Sync + 'static,
    {
        let Server { listener, config } = self;
        let handlers = Arc::new(handlers);
        let stats = Arc::new(Mutex::new(vec![WorkerStats::default(); config.workers]));
        let mut hands = Vec::new();
        let mut workers = Vec::new();
        for id in 0..config.workers {
            let (hand, inbox) = mpsc::unbounded_channel();
            hands.push(hand);
            let (handlers, stats) = (Arc::clone(&handlers), Arc::clone(&stats));
            workers.push(thread::spawn(move || {
                worker(id, inbox, handlers(id), config, stats)
            }));
        }
        accept(listener, hands, shutdown)?;
        for worker in workers {
            match worker.join() {
                Ok(done) => done?,
                // A worker panicked (its handler did, say): its panic goes on to our
                // caller, message and all, instead of vanishing.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        let stats = stats.lock().unwrap().clone();
        Ok(stats)
    }
}
// ANCHOR_END: run

// ANCHOR: accept (the book quotes the code from here to the ANCHOR_END line)
/// The acceptor, on the calling thread: deals connections round-robin until `shutdown`.
fn accept(
    listener: Listening,
    hands: Vec<mpsc::UnboundedSender<TcpStream>>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let runtime = Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = listener.listen()?;
        let mut shutdown = pin!(shutdown);
        let mut next = 0;
        loop {
            tokio::select! {
                () = &mut shutdown => return Ok(()),
                accepted = listener.accept() => match accepted {
                    Ok(stream) => {
                        // Unbounded: a burst waits in the worker's inbox, never dropped.
                        let _ = hands[next].send(stream);
                        next = (next + 1) % hands.len();
                    }
                    // Out of file descriptors, say: not the end of the server (but
                    // tried again at once, and in silence).
                    Err(_) => continue,
                },
            }
        }
    })
}
// ANCHOR_END: accept

// ANCHOR: worker (the book quotes the code from here to the ANCHOR_END line)
/// One worker: a local runtime serving the connections it is handed.
fn worker<H: Handler + 'static>(
    id: usize,
    mut inbox: mpsc::UnboundedReceiver<TcpStream>,
    handler: H,
    config: Config,
    stats: Arc<Mutex<Vec<WorkerStats>>>,
) -> io::Result<()> {
    let runtime = Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())?;
    let handler = Rc::new(handler);
    let http = Rc::new(http1_builder(&config));
    // Outside tokio's cooperative budget (hint 6 says why it matters once the worker is
    // one task for all of its connections).
    runtime.block_on(tokio::task::coop::unconstrained(async {
        while let Some(stream) = inbox.recv().await {
            stats.lock().unwrap()[id].connections += 1;
            let (handler, http, stats) =
                (Rc::clone(&handler), Rc::clone(&http), Arc::clone(&stats));
            tokio::task::spawn_local(async move {
                let count = || stats.lock().unwrap()[id].requests += 1;
                let never = std::future::pending();
                connection(stream, &*handler, &http, &config, never, count).await;
            });
        }
    }));
    Ok(())
}
// ANCHOR_END: worker
// ANCHOR_END: starter

// Given: hyper plumbing. You should not need to change anything below this line.

// ANCHOR: connection (the book quotes the code from here to the ANCHOR_END line)
// ANCHOR: given_connection (given code: keep it as it is; `cargo labs check` compares it)
/// hyper's HTTP/1 settings, shared by a worker's connections. No timer: hyper's own
/// `header_read_timeout` (which needs one) creates a new boxed timer for every request;
/// `connection` keeps one timer per connection instead.
fn http1_builder(config: &Config) -> http1::Builder {
    let mut http = http1::Builder::new();
    http.max_header_size(config.max_header_size);
    http
}

/// Serves one connection until the client leaves, a timeout fires, or `stop`
/// completes; then it finishes the request in flight, if any, and closes.
/// `count` is called once per request.
async fn connection<H: Handler>(
    stream: TcpStream,
    handler: &H,
    http: &http1::Builder,
    config: &Config,
    stop: impl Future<Output = ()>,
    count: impl Fn(),
) {
    let _ = stream.set_nodelay(true);
    let io = TokioIo::new(WriteTimeout::new(stream, config.write_timeout));
    // Requests whose head has arrived, and requests answered: equal while the
    // connection waits for the next head.
    let (started, answered) = (Cell::new(0u64), Cell::new(0u64));
    let service = service_fn(|request: Request<Incoming>| {
        count();
        started.set(started.get() + 1);
        let request = request.map(|incoming| Body {
            incoming,
            timeout: config.body_timeout,
            limit: config.max_body,
        });
        let answer = handler.call(request);
        let answered = &answered;
        async move {
            let reply = answer.await;
            answered.set(answered.get() + 1);
            Ok::<_, Infallible>(reply)
        }
    });
    let mut conn = pin!(http.serve_connection(io, service));
    let mut stop = pin!(stop);
    // The header timeout: one timer, re-armed only when it fires. A connection that
    // waits for a head through a whole period (no new request since the last check)
    // is closed: a head gets between one and two `header_timeout`s.
    let mut check = pin!(tokio::time::sleep(config.header_timeout));
    let (mut seen, mut stopping) = (0, false);
    loop {
        tokio::select! {
            biased;
            _ = conn.as_mut() => return,
            () = stop.as_mut(), if !stopping => {
                conn.as_mut().graceful_shutdown();
                stopping = true;
            }
            () = check.as_mut() => {
                if started.get() == answered.get() && started.get() == seen {
                    return; // no head for a whole period: close
                }
                seen = started.get();
                check.as_mut().reset(Instant::now() + config.header_timeout);
            }
        }
    }
}

/// The handler for connections over the limit.
#[allow(dead_code, reason = "yours to use: the starter has no limit")]
struct Busy;

impl Handler for Busy {
    async fn call(&self, _: Request<Body>) -> Reply {
        let mut busy = reply(StatusCode::SERVICE_UNAVAILABLE, "busy");
        busy.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        busy
    }
}
// ANCHOR_END: given_connection
// ANCHOR_END: connection

// ANCHOR: listener (the book quotes the code from here to the ANCHOR_END line)
// ANCHOR: given_listener (given code: keep it as it is; `cargo labs check` compares it)
/// The listening socket between `Server::bind` and the acceptor: bound, and not yet
/// registered with any runtime.
struct Listening {
    socket: std::net::TcpListener,
    /// How many accepts are still to fail (`Server::fail_accepts`).
    failures: usize,
}

impl Listening {
    /// Registers the socket with the reactor of the runtime it is called in: call it
    /// inside the acceptor's runtime.
    fn listen(self) -> io::Result<Listener> {
        Ok(Listener {
            socket: TcpListener::from_std(self.socket)?,
            failures: Cell::new(self.failures),
            held: Cell::new(None),
        })
    }
}

/// The acceptor's listener: tokio's, with one seam for the tests. While failures asked
/// for by `Server::fail_accepts` remain, `accept` holds the new connection back and fails
/// as accept(2) does when the process is out of file descriptors (EMFILE). The kernel
/// would keep that connection queued, so the first accept after the failures returns it.
struct Listener {
    socket: TcpListener,
    failures: Cell<usize>,
    held: Cell<Option<TcpStream>>,
}

impl Listener {
    /// The next connection (cancel-safe, as tokio's `accept` is).
    async fn accept(&self) -> io::Result<TcpStream> {
        let stream = match self.held.take() {
            Some(stream) => stream,
            None => self.socket.accept().await?.0,
        };
        if self.failures.get() > 0 {
            self.failures.set(self.failures.get() - 1);
            self.held.set(Some(stream));
            return Err(io::Error::other(
                "too many open files (a failure asked for by Server::fail_accepts)",
            ));
        }
        Ok(stream)
    }
}
// ANCHOR_END: given_listener
// ANCHOR_END: listener

// ANCHOR: stop (the book quotes the code from here to the ANCHOR_END line)
// ANCHOR: given_stop (given code: keep it as it is; `cargo labs check` compares it)
/// A stop signal for one worker's connections: `stop()` once, and every `wait()`
/// completes. It never leaves the worker's thread, so it needs no lock and no atomic
/// (tokio's `Notify` would work too, but it takes a lock each time it is polled).
#[derive(Default)]
#[allow(
    dead_code,
    reason = "yours to use: the starter never stops a connection"
)]
struct Stop {
    stopped: Cell<bool>,
    waiting: RefCell<Waiting>,
}

#[derive(Default)]
struct Waiting {
    wakers: Vec<Option<Waker>>,
    free: Vec<usize>,
}

#[allow(
    dead_code,
    reason = "yours to use: the starter never stops a connection"
)]
impl Stop {
    fn stop(&self) {
        self.stopped.set(true);
        let wakers = std::mem::take(&mut self.waiting.borrow_mut().wakers);
        for waker in wakers.into_iter().flatten() {
            waker.wake();
        }
    }

    fn wait(&self) -> Stopped<'_> {
        Stopped {
            stop: self,
            slot: None,
        }
    }
}

/// Completes once `Stop::stop` has been called.
struct Stopped<'a> {
    stop: &'a Stop,
    slot: Option<usize>,
}

impl Future for Stopped<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        if this.stop.stopped.get() {
            return Poll::Ready(());
        }
        let mut waiting = this.stop.waiting.borrow_mut();
        let slot = match this.slot {
            Some(slot) => slot,
            None => {
                let slot = waiting.free.pop().unwrap_or_else(|| {
                    waiting.wakers.push(None);
                    waiting.wakers.len() - 1
                });
                this.slot = Some(slot);
                slot
            }
        };
        match &mut waiting.wakers[slot] {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            entry => *entry = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        if let (Some(slot), false) = (self.slot, self.stop.stopped.get()) {
            let mut waiting = self.stop.waiting.borrow_mut();
            waiting.wakers[slot] = None;
            waiting.free.push(slot);
        }
    }
}
// ANCHOR_END: given_stop
// ANCHOR_END: stop

// ANCHOR: write_timeout (the book quotes the code from here to the ANCHOR_END line)
// ANCHOR: given_write_timeout (given code: keep it as it is; `cargo labs check` compares it)
/// A stream whose writes fail after `limit` without progress. hyper has no write
/// timeout: a client that never reads its response would hold its connection, and a
/// graceful shutdown, forever. The timer exists only once a write has had to wait.
struct WriteTimeout {
    stream: TcpStream,
    limit: Duration,
    deadline: Option<Pin<Box<Sleep>>>,
    waiting: bool,
}

impl WriteTimeout {
    fn new(stream: TcpStream, limit: Duration) -> Self {
        WriteTimeout {
            stream,
            limit,
            deadline: None,
            waiting: false,
        }
    }

    /// Passes a write's result on; if it is still pending, starts the clock (once per
    /// wait) and fails the write when the clock runs out.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.waiting = false;
            return poll;
        }
        let until = Instant::now() + self.limit;
        let deadline = match (&mut self.deadline, self.waiting) {
            (Some(deadline), true) => deadline,
            (Some(deadline), false) => {
                deadline.as_mut().reset(until);
                deadline
            }
            (none, _) => none.insert(Box::pin(tokio::time::sleep_until(until))),
        };
        self.waiting = true;
        ready!(deadline.as_mut().poll(cx));
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client stopped reading",
        )))
    }
}

impl AsyncRead for WriteTimeout {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteTimeout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.watch(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_flush(cx);
        self.watch(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.watch(cx, poll)
    }
}
// ANCHOR_END: given_write_timeout
// ANCHOR_END: write_timeout
