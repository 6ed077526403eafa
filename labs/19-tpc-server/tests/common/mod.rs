//! What the tests of lab 19 share: a test application whose handlers keep `Rc` state
//! across `.await`, a probe the test owns and lends to every worker, and a harness that
//! runs the server on a scoped thread and always stops it, even when a test fails.
#![allow(dead_code, reason = "each test file uses part of this module")]
#![allow(
    clippy::disallowed_types,
    reason = "the probe is shared by every worker thread: the test's side needs its locks"
)]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::{self, ThreadId};
use std::time::Duration;

use hyper::header::HeaderValue;
use hyper::{Request, StatusCode};
use tokio::sync::Semaphore;
use tpc_server::{Body, Config, Handler, Reply, Server, WorkerStats, reply};

pub use lab_support::http::{Client, IO_LIMIT};

/// The wall-clock limit on a whole test: only there to turn a hang into a failure.
pub const LIMIT: Duration = Duration::from_secs(30);

/// How long `Server::run` may take to return once `shutdown` has completed and the test's
/// clients are done: a correct server takes milliseconds, or a few seconds where a test
/// keeps bad clients connected until their timeouts close them.
pub const STOP_LIMIT: Duration = IO_LIMIT;

thread_local! {
    /// The watchdog of the test running on this thread (see `watched`).
    static TRIPWIRE: RefCell<Option<lab_support::Tripwire>> = const { RefCell::new(None) };
}

/// How big `GET /big` is: more than any loopback socket buffers hold, so a client that
/// does not read it leaves the server's write stuck.
pub const BIG: usize = 32 << 20;

/// Owned by the test, lent to every worker's handler: only `Sync` things, since every
/// worker thread sees it.
pub struct Probe {
    /// A handler of `/wait` or `/upload` has started: (worker, path).
    entered: mpsc::Sender<(usize, &'static str)>,
    started: Mutex<mpsc::Receiver<(usize, &'static str)>>,
    /// Handlers of `/wait` wait for a permit.
    gate: Semaphore,
    /// Handler futures alive right now.
    live: AtomicUsize,
    /// Handlers (one per worker) alive right now.
    handlers: AtomicUsize,
    /// Which threads each worker's handler ran on.
    threads: Mutex<BTreeMap<usize, HashSet<ThreadId>>>,
}

impl Default for Probe {
    fn default() -> Self {
        let (entered, started) = mpsc::channel();
        Probe {
            entered,
            started: Mutex::new(started),
            gate: Semaphore::new(0),
            live: AtomicUsize::new(0),
            handlers: AtomicUsize::new(0),
            threads: Mutex::default(),
        }
    }
}

impl Probe {
    /// Waits until a handler of `/wait` or `/upload` has started; returns (worker, path).
    pub fn started(&self) -> (usize, &'static str) {
        self.started
            .lock()
            .unwrap()
            .recv_timeout(IO_LIMIT)
            .expect("no handler started within 10 s: is the request stuck on its way to a worker?")
    }

    /// Lets `n` waiting `/wait` handlers finish.
    pub fn release(&self, n: usize) {
        self.gate.add_permits(n);
    }

    /// The threads each worker's handler ran on.
    pub fn threads(&self) -> BTreeMap<usize, HashSet<ThreadId>> {
        self.threads.lock().unwrap().clone()
    }

    /// Waits until at most `n` workers' handlers are alive (a worker's handler goes when
    /// its worker ends), up to [`IO_LIMIT`]; says whether that happened.
    pub fn handlers_down_to(&self, n: usize) -> bool {
        down_to(&self.handlers, n)
    }

    /// Waits until at most `n` handler futures are alive, up to [`IO_LIMIT`]; says whether
    /// that happened.
    pub fn live_down_to(&self, n: usize) -> bool {
        down_to(&self.live, n)
    }
}

fn down_to(count: &AtomicUsize, n: usize) -> bool {
    let deadline = std::time::Instant::now() + IO_LIMIT;
    while count.load(SeqCst) > n {
        if std::time::Instant::now() > deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(5));
    }
    true
}

/// Two sides of a test that must each reach a point before either goes on: `meet` sends
/// to the other side and waits for it, up to [`IO_LIMIT`]. If the other side has failed
/// (its `Meeting` is gone), `meet` fails at once instead of waiting.
pub struct Meeting {
    here: mpsc::Sender<()>,
    there: mpsc::Receiver<()>,
}

impl Meeting {
    pub fn pair() -> (Meeting, Meeting) {
        let (a, from_a) = mpsc::channel();
        let (b, from_b) = mpsc::channel();
        (
            Meeting {
                here: a,
                there: from_b,
            },
            Meeting {
                here: b,
                there: from_a,
            },
        )
    }

    pub fn meet(&self, what: &str) {
        let _ = self.here.send(());
        self.there
            .recv_timeout(IO_LIMIT)
            .unwrap_or_else(|e| panic!("{what}: the other side did not get there ({e})"));
    }
}

/// The application under test. One per worker, built on that worker's thread.
pub struct App<'p> {
    worker: usize,
    probe: &'p Probe,
    /// This worker's hit counter. An `Rc`, held across `.await` below: the handler's
    /// future is not `Send`, so only a server that keeps it on one thread can run it.
    hits: Rc<Cell<u64>>,
}

/// The handler factory `Server::run` takes: it borrows the probe from the test.
pub fn app<'p>(probe: &'p Probe) -> impl Fn(usize) -> App<'p> + Sync {
    move |worker| {
        probe.handlers.fetch_add(1, SeqCst);
        App {
            worker,
            probe,
            hits: Rc::new(Cell::new(0)),
        }
    }
}

impl Drop for App<'_> {
    fn drop(&mut self) {
        self.probe.handlers.fetch_sub(1, SeqCst);
    }
}

/// Counts a handler future as alive until it is dropped, finished or not.
struct Live<'p>(&'p AtomicUsize);

impl Drop for Live<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, SeqCst);
    }
}

impl Handler for App<'_> {
    async fn call(&self, request: Request<Body>) -> Reply {
        self.probe.live.fetch_add(1, SeqCst);
        let _live = Live(&self.probe.live);
        self.probe
            .threads
            .lock()
            .unwrap()
            .entry(self.worker)
            .or_default()
            .insert(thread::current().id());
        let mut answer = match (request.method().as_str(), request.uri().path()) {
            ("GET", "/") => reply(StatusCode::OK, format!("worker {}", self.worker)),
            ("GET", "/hits") => {
                let hits = Rc::clone(&self.hits);
                tokio::task::yield_now().await; // `hits` lives across this await
                hits.set(hits.get() + 1);
                reply(StatusCode::OK, hits.get().to_string())
            }
            ("GET", "/wait") => {
                let _ = self.probe.entered.send((self.worker, "/wait"));
                self.probe.gate.acquire().await.expect("gate").forget();
                reply(StatusCode::OK, "released")
            }
            ("POST", "/upload") => {
                let _ = self.probe.entered.send((self.worker, "/upload"));
                match request.into_body().bytes().await {
                    Ok(body) => reply(StatusCode::OK, format!("{} bytes", body.len())),
                    Err(error) => error.reply(),
                }
            }
            ("GET", "/big") => reply(StatusCode::OK, vec![b'x'; BIG]),
            ("GET", "/budget") => reply(StatusCode::OK, forced_yields(1000).await.to_string()),
            _ => reply(StatusCode::NOT_FOUND, "no such route"),
        };
        answer
            .headers_mut()
            .insert("x-worker", HeaderValue::from(self.worker));
        answer
    }
}

/// Spends `operations` units of tokio's cooperative budget, as that many reads or writes
/// would, and counts how often tokio made the handler yield because the budget of the task
/// it runs in was spent.
async fn forced_yields(operations: usize) -> usize {
    let mut forced = 0;
    for _ in 0..operations {
        let mut spend = std::pin::pin!(tokio::task::coop::consume_budget());
        let at_once =
            std::future::poll_fn(|cx| std::task::Poll::Ready(spend.as_mut().poll(cx).is_ready()))
                .await;
        if !at_once {
            forced += 1;
            spend.await;
        }
    }
    forced
}

/// A config with `workers` workers and timeouts longer than any wait of the test
/// client (tests that need short ones say so).
pub fn config(workers: usize) -> Config {
    Config {
        workers,
        header_timeout: 2 * IO_LIMIT,
        body_timeout: 2 * IO_LIMIT,
        write_timeout: 2 * IO_LIMIT,
        ..Config::default()
    }
}

/// What the test tells the server's `shutdown` future.
enum Control {
    /// Block the thread that polls `shutdown` (the acceptor's) until `thaw` says so.
    Freeze {
        frozen: mpsc::Sender<()>,
        thaw: mpsc::Receiver<()>,
    },
    Stop,
}

/// Controls the server's `shutdown` future: stops the server at once with `now`, or when
/// dropped (so a failing test still stops it); or freezes the acceptor's thread.
pub struct Stop(Option<tokio::sync::mpsc::UnboundedSender<Control>>);

/// While alive, the acceptor's thread is blocked. Dropping it lets the thread go on.
pub struct Thaw(mpsc::Sender<()>);

impl Stop {
    pub fn now(&mut self) {
        if let Some(control) = self.0.take() {
            let _ = control.send(Control::Stop);
        }
    }

    /// Blocks the thread that runs the acceptor: the next poll of the `shutdown` future
    /// (which the acceptor polls while it waits for connections) blocks that thread, so
    /// the acceptor's runtime runs nothing, not even its reactor, until `Thaw` is dropped.
    pub fn freeze_acceptor(&self) -> Thaw {
        let (frozen, is_frozen) = mpsc::channel();
        let (thaw, on_thaw) = mpsc::channel();
        let control = self.0.as_ref().expect("the server was already stopped");
        let _ = control.send(Control::Freeze {
            frozen,
            thaw: on_thaw,
        });
        is_frozen.recv_timeout(IO_LIMIT).expect(
            "the acceptor did not poll `shutdown` within 10 s: it should wait for \
             `shutdown` and for connections at the same time",
        );
        Thaw(thaw)
    }
}

/// The `shutdown` future the harness gives `Server::run`.
async fn shutdown(mut control: tokio::sync::mpsc::UnboundedReceiver<Control>) {
    while let Some(order) = control.recv().await {
        match order {
            Control::Freeze { frozen, thaw } => {
                let _ = frozen.send(());
                let _ = thaw.recv(); // blocks this thread: the acceptor's
            }
            Control::Stop => return,
        }
    }
}

/// Runs a server with the test application on 127.0.0.1, port 0, lets `clients` talk to
/// it, stops it and returns its stats. Checks that nothing outlived `Server::run`: no
/// handler future and no handler, and that no worker ran on the thread that called `run`.
pub fn serve(
    config: Config,
    probe: &Probe,
    clients: impl FnOnce(SocketAddr, &mut Stop),
) -> Vec<WorkerStats> {
    let server = Server::bind("127.0.0.1:0".parse().unwrap(), config).expect("bind 127.0.0.1:0");
    let addr = server.local_addr().expect("local_addr");
    let (control, controlled) = tokio::sync::mpsc::unbounded_channel();
    let handlers = app(probe);
    let handlers = &handlers;
    let (stats, runner) = thread::scope(|s| {
        let (returned, has_returned) = mpsc::channel::<()>();
        let running = s.spawn(move || {
            let stats = server.run(handlers, shutdown(controlled));
            let _ = returned.send(());
            (stats, thread::current().id())
        });
        let mut stop = Stop(Some(control));
        let clients = panic::catch_unwind(AssertUnwindSafe(|| clients(addr, &mut stop)));
        drop(stop);
        // This thread cannot fail the test while `run` hangs (the scope waits for it), so
        // it trips the watchdog instead, naming the cause.
        if let Err(RecvTimeoutError::Timeout) = has_returned.recv_timeout(STOP_LIMIT) {
            let failed = match clients {
                Err(_) => " (after the test had failed: its panic is above)",
                Ok(()) => "",
            };
            TRIPWIRE.with_borrow(|tripwire| {
                if let Some(tripwire) = tripwire {
                    tripwire.trip(format!(
                        "Server::run had not returned {STOP_LIMIT:?} after `shutdown` \
                         completed{failed}. Does the acceptor then drop its senders, so that \
                         every worker's inbox closes? Does each worker then stop its \
                         connections (idle ones close at once), wait for them, and end?"
                    ));
                }
            });
        }
        let joined = running.join();
        if let Err(panic) = clients {
            panic::resume_unwind(panic);
        }
        joined.expect("Server::run panicked")
    });
    let stats = stats.expect("Server::run returned an error");
    assert_eq!(
        probe.live.load(SeqCst),
        0,
        "a handler future was still alive after Server::run returned"
    );
    assert_eq!(
        probe.handlers.load(SeqCst),
        0,
        "a worker's handler was still alive after Server::run returned"
    );
    for (worker, threads) in probe.threads() {
        assert!(
            !threads.contains(&runner),
            "worker {worker} ran on the thread that called Server::run: workers need threads of their own"
        );
    }
    stats
}

/// Runs a test body under the wall-clock watchdog, which `serve` trips early when the
/// server does not stop.
pub fn watched(body: impl FnOnce() + Send + 'static) {
    lab_support::within_tripwire(
        LIMIT,
        "the test did not finish. Does Server::run return once `shutdown` completes \
         and every connection is done? Does every worker thread end?",
        |tripwire| {
            TRIPWIRE.set(Some(tripwire));
            body()
        },
    );
}
