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
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Condvar, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

use hyper::header::HeaderValue;
use hyper::{Request, StatusCode};
use lab_support::OsThread;
use tokio::sync::Semaphore;
use tpc_server::{Body, Config, Handler, Reply, Server, WorkerStats, reply};

pub use lab_support::http::{Client, IO_LIMIT};

/// How long a test waits for what a correct server does at once (an answer, a close)
/// where a wrong one stalls: the stall fails the test after this, not after [`IO_LIMIT`].
/// A correct server takes milliseconds; this is only the margin for a loaded machine.
pub const PROMPT: Duration = Duration::from_secs(2);

/// What the handler of `GET /panic` panics with.
pub const PANIC: &str = "the test's handler panics on purpose";

/// The wall-clock limit on a whole test: only there to turn a hang into a failure.
pub const LIMIT: Duration = Duration::from_secs(30);

/// How long `Server::run` may take to return once `shutdown` has completed and the test's
/// clients are done: a correct server takes milliseconds. A test that keeps bad clients
/// connected until their timeouts close them says how long it allows
/// ([`serve_stopping_within`]).
pub const STOP_LIMIT: Duration = PROMPT;

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
    /// Each worker's thread as the OS sees it (first request), and the acceptor's (the
    /// thread that polls `shutdown`). Empty where the OS does not tell (not Linux).
    os_threads: Mutex<BTreeMap<usize, OsThread>>,
    acceptor: Mutex<Option<OsThread>>,
    /// The thread that called `Server::run`, as the OS sees it.
    runner: Mutex<Option<OsThread>>,
    /// How many times the handlers of `/wait` were polled while they waited.
    wait_polls: AtomicUsize,
    /// Handlers of `/block` block their worker's thread until this is true.
    unblocked: (Mutex<bool>, Condvar),
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
            os_threads: Mutex::default(),
            acceptor: Mutex::default(),
            runner: Mutex::default(),
            wait_polls: AtomicUsize::new(0),
            unblocked: (Mutex::new(false), Condvar::new()),
        }
    }
}

impl Probe {
    /// Waits until a handler of `/wait` or `/upload` has started; returns (worker, path).
    pub fn started(&self) -> (usize, &'static str) {
        self.started
            .lock()
            .unwrap()
            .recv_timeout(PROMPT)
            .expect("no handler started within 2 s: is the request stuck on its way to a worker?")
    }

    /// Lets `n` waiting `/wait` handlers finish.
    pub fn release(&self, n: usize) {
        self.gate.add_permits(n);
    }

    /// The threads each worker's handler ran on.
    pub fn threads(&self) -> BTreeMap<usize, HashSet<ThreadId>> {
        self.threads.lock().unwrap().clone()
    }

    /// Worker `worker`'s thread, as the OS sees it (once its handler has answered a
    /// request); `None` where the OS does not tell.
    pub fn worker_thread(&self, worker: usize) -> Option<OsThread> {
        self.os_threads.lock().unwrap().get(&worker).copied()
    }

    /// The acceptor's thread (the one that polls `shutdown`), as the OS sees it.
    pub fn acceptor_thread(&self) -> Option<OsThread> {
        *self.acceptor.lock().unwrap()
    }

    /// The acceptor's thread, once it has polled `shutdown` (it is waited for, up to
    /// [`PROMPT`]); `None` where the OS does not tell.
    pub fn acceptor_started(&self) -> Option<OsThread> {
        OsThread::current()?;
        let deadline = std::time::Instant::now() + PROMPT;
        loop {
            if let Some(acceptor) = self.acceptor_thread() {
                return Some(acceptor);
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the acceptor did not poll `shutdown` within {PROMPT:?}: it should wait for \
                 `shutdown` and for connections at the same time"
            );
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// The thread that called `Server::run`, as the OS sees it.
    pub fn runner_thread(&self) -> Option<OsThread> {
        *self.runner.lock().unwrap()
    }

    /// How many times the handlers of `/wait` have been polled while they waited for
    /// [`Probe::release`], all of them together.
    pub fn wait_polls(&self) -> usize {
        self.wait_polls.load(SeqCst)
    }

    /// Lets every handler of `/block` go on, now and from now on.
    pub fn unblock(&self) {
        let (unblocked, changed) = &self.unblocked;
        *unblocked.lock().unwrap() = true;
        changed.notify_all();
    }

    /// Blocks the calling thread (a worker's, in `/block`) until `unblock`, for at most
    /// [`IO_LIMIT`].
    fn block(&self) {
        let (unblocked, changed) = &self.unblocked;
        let guard = unblocked.lock().unwrap();
        let _ = changed
            .wait_timeout_while(guard, IO_LIMIT, |unblocked| !*unblocked)
            .unwrap();
    }

    /// Waits until at most `n` workers' handlers are alive (a worker's handler goes when
    /// its worker ends), up to [`PROMPT`]; says whether that happened.
    pub fn handlers_down_to(&self, n: usize) -> bool {
        down_to(&self.handlers, n)
    }

    /// Waits until at most `n` handler futures are alive, up to [`PROMPT`]; says whether
    /// that happened.
    pub fn live_down_to(&self, n: usize) -> bool {
        down_to(&self.live, n)
    }
}

fn down_to(count: &AtomicUsize, n: usize) -> bool {
    let deadline = std::time::Instant::now() + PROMPT;
    while count.load(SeqCst) > n {
        if std::time::Instant::now() > deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(5));
    }
    true
}

/// Lets the workers blocked in `/block` go on when dropped, even if the test fails.
pub struct Unblock<'p>(pub &'p Probe);

impl Drop for Unblock<'_> {
    fn drop(&mut self) {
        self.0.unblock();
    }
}

/// Two sides of a test that must each reach a point before either goes on: `meet` sends
/// to the other side and waits for it, up to [`PROMPT`]. If the other side has failed
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
            .recv_timeout(PROMPT)
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
        if let std::collections::btree_map::Entry::Vacant(entry) =
            self.probe.os_threads.lock().unwrap().entry(self.worker)
            && let Some(me) = OsThread::current()
        {
            entry.insert(me);
        }
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
                let mut permit = std::pin::pin!(self.probe.gate.acquire());
                std::future::poll_fn(|cx| {
                    self.probe.wait_polls.fetch_add(1, SeqCst);
                    permit.as_mut().poll(cx)
                })
                .await
                .expect("gate")
                .forget();
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
            // Which tokio task runs this handler: none, if the worker serves its
            // connections itself (`block_on` has no task id).
            ("GET", "/task") => match tokio::task::try_id() {
                Some(id) => reply(StatusCode::OK, format!("task {id}")),
                None => reply(StatusCode::OK, "no task"),
            },
            ("GET", "/block") => {
                let _ = self.probe.entered.send((self.worker, "/block"));
                self.probe.block(); // blocks the worker's thread: nothing else runs on it
                reply(StatusCode::OK, "unblocked")
            }
            ("GET", "/panic") => panic!("{PANIC}"),
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
        is_frozen.recv_timeout(PROMPT).expect(
            "the acceptor did not poll `shutdown` within 2 s: it should wait for \
             `shutdown` and for connections at the same time",
        );
        Thaw(thaw)
    }
}

/// The `shutdown` future the harness gives `Server::run`. It notes which thread polls it:
/// the acceptor's.
async fn shutdown(mut control: tokio::sync::mpsc::UnboundedReceiver<Control>, probe: &Probe) {
    if let Some(me) = OsThread::current() {
        *probe.acceptor.lock().unwrap() = Some(me);
    }
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

/// A client whose every read and write gives up after [`PROMPT`], for what a correct
/// server does at once.
pub fn connect(addr: SocketAddr) -> Client {
    let client = Client::connect(addr);
    client.stream().set_read_timeout(Some(PROMPT)).unwrap();
    client.stream().set_write_timeout(Some(PROMPT)).unwrap();
    client
}

/// Binds a server on 127.0.0.1, port 0.
pub fn bind(config: Config) -> Server {
    Server::bind("127.0.0.1:0".parse().unwrap(), config).expect("bind 127.0.0.1:0")
}

/// Runs a server with the test application on 127.0.0.1, port 0, lets `clients` talk to
/// it, stops it and returns its stats. Checks that nothing outlived `Server::run`: no
/// handler future and no handler, and that no worker ran on the thread that called `run`.
pub fn serve(
    config: Config,
    probe: &Probe,
    clients: impl FnOnce(SocketAddr, &mut Stop),
) -> Vec<WorkerStats> {
    serve_server(bind(config), probe, clients)
}

/// [`serve`], allowing `Server::run` up to `limit` to return after `shutdown` (instead of
/// [`STOP_LIMIT`]): for a test that leaves bad clients connected until their timeouts.
pub fn serve_stopping_within(
    limit: Duration,
    config: Config,
    probe: &Probe,
    clients: impl FnOnce(SocketAddr, &mut Stop),
) -> Vec<WorkerStats> {
    outcome(try_serve_within(bind(config), probe, limit, clients))
}

/// [`serve`] for a server the test has bound (and set up) itself.
pub fn serve_server(
    server: Server,
    probe: &Probe,
    clients: impl FnOnce(SocketAddr, &mut Stop),
) -> Vec<WorkerStats> {
    outcome(try_serve(server, probe, clients))
}

/// The stats, or a panic that says what `Server::run` did instead.
fn outcome(outcome: thread::Result<std::io::Result<Vec<WorkerStats>>>) -> Vec<WorkerStats> {
    match outcome {
        Ok(Ok(stats)) => stats,
        Ok(Err(error)) => panic!("Server::run returned an error: {error}"),
        Err(panic) => panic!("Server::run panicked: {}", panic_text(&*panic)),
    }
}

/// [`serve_server`], returning what `Server::run` returned, or its panic.
pub fn try_serve(
    server: Server,
    probe: &Probe,
    clients: impl FnOnce(SocketAddr, &mut Stop),
) -> thread::Result<std::io::Result<Vec<WorkerStats>>> {
    try_serve_within(server, probe, STOP_LIMIT, clients)
}

fn try_serve_within(
    server: Server,
    probe: &Probe,
    stop_limit: Duration,
    clients: impl FnOnce(SocketAddr, &mut Stop),
) -> thread::Result<std::io::Result<Vec<WorkerStats>>> {
    let addr = server.local_addr().expect("local_addr");
    let (control, controlled) = tokio::sync::mpsc::unbounded_channel();
    let handlers = app(probe);
    let handlers = &handlers;
    let (outcome, runner) = thread::scope(|s| {
        let (returned, has_returned) = mpsc::channel::<()>();
        let running = s.spawn(move || {
            // Sent when `run` returns or unwinds.
            let _returned = Returned(returned);
            *probe.runner.lock().unwrap() = OsThread::current();
            server.run(handlers, shutdown(controlled, probe))
        });
        let runner = running.thread().id();
        let mut stop = Stop(Some(control));
        let clients = panic::catch_unwind(AssertUnwindSafe(|| clients(addr, &mut stop)));
        drop(stop);
        // This thread cannot fail the test while `run` hangs (the scope waits for it), so
        // it trips the watchdog instead, naming the cause.
        if let Err(RecvTimeoutError::Timeout) = has_returned.recv_timeout(stop_limit) {
            let failed = match clients {
                Err(_) => " (after the test had failed: its panic is above)",
                Ok(()) => "",
            };
            TRIPWIRE.with_borrow(|tripwire| {
                if let Some(tripwire) = tripwire {
                    tripwire.trip(format!(
                        "Server::run had not returned {stop_limit:?} after `shutdown` \
                         completed{failed}. Does the acceptor then drop its senders, so that \
                         every worker's inbox closes? Does the acceptor poll `shutdown` first \
                         (`biased;`), so that a stream of connections or of failed accepts \
                         cannot keep it from stopping? Does each worker then stop its \
                         connections (idle ones close at once, and so do the ones still in its \
                         queue), wait for them, and end?"
                    ));
                }
            });
        }
        let joined = running.join();
        if let Err(panic) = clients {
            panic::resume_unwind(panic);
        }
        (joined, runner)
    });
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
    outcome
}

/// Says that `Server::run` has returned (or unwound) when dropped.
struct Returned(mpsc::Sender<()>);

impl Drop for Returned {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// The text of a panic's payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(a panic without a message)".to_owned()
    }
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

/// Set in the process [`alone`] starts: the name of the test it runs.
const ALONE: &str = "TPC_SERVER_TEST_ALONE";

/// Runs the test `name` (the caller) in a process of its own, so that every thread of that
/// process that the test did not start is the server's: `body` runs there, under
/// [`watched`], and a failure there fails the test here with the same message. Other tests
/// run in this process at the same time, each with threads of its own, which a test that
/// counts the server's threads must not see.
pub fn alone(name: &str, body: impl FnOnce() + Send + 'static) {
    alone_stderr(name, body);
}

/// [`alone`], and what that process wrote on stderr: `Some` in the test's own process once
/// `body` has passed in the other one, `None` in the other one (where `body` ran).
pub fn alone_stderr(name: &str, body: impl FnOnce() + Send + 'static) -> Option<String> {
    if std::env::var(ALONE).as_deref() == Ok(name) {
        watched(body);
        return None;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let ran = std::process::Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ALONE, name)
        .output()
        .expect("start the test binary again, for this test alone");
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    if !stdout.contains("1 passed") {
        if !stdout.contains("1 failed") && !stdout.contains("0 passed") {
            panic!(
                "the test, run in a process of its own, ended without a result:\n{stdout}\n{stderr}"
            );
        }
        // The panic's message: the lines after "panicked at FILE:LINE:COLUMN:".
        let message = stderr
            .split_once("panicked at ")
            .and_then(|(_, rest)| rest.split_once('\n'))
            .map(|(_, message)| {
                message
                    .lines()
                    .take_while(|line| {
                        !line.starts_with("note: ") && !line.starts_with("stack backtrace")
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        match message {
            Some(message) => panic!("{message}"),
            None => panic!("the test failed in a process of its own:\n{stderr}"),
        }
    }
    Some(stderr.into_owned())
}

/// A thread of this process, as `/proc/self/task` lists it (Linux).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Task {
    pub tid: u32,
}

impl Task {
    fn read(&self, file: &str) -> Option<String> {
        std::fs::read_to_string(format!("/proc/self/task/{}/{file}", self.tid)).ok()
    }

    /// Its name (at most 15 bytes: the kernel's `comm`); `?` once it has ended.
    pub fn name(&self) -> String {
        self.read("comm")
            .map(|name| name.trim_end().to_owned())
            .unwrap_or_else(|| "?".to_owned())
    }

    /// How many times it has gone to sleep (`None` once it has ended).
    pub fn sleeps(&self) -> Option<u64> {
        self.read("status")?
            .lines()
            .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))?
            .trim()
            .parse()
            .ok()
    }

    /// Whether it is asleep right now (`None` once it has ended).
    pub fn asleep(&self) -> Option<bool> {
        let stat = self.read("stat")?;
        let state = stat[stat.rfind(')')? + 1..].trim_start().chars().next()?;
        Some(matches!(state, 'S' | 'D'))
    }

    pub fn is(&self, thread: Option<OsThread>) -> bool {
        thread.is_some_and(|t| t.tid() == self.tid)
    }
}

/// Every thread of this process, now.
pub fn tasks() -> std::collections::BTreeSet<Task> {
    std::fs::read_dir("/proc/self/task")
        .map(|dir| {
            dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
                .map(|tid| Task { tid })
                .collect()
        })
        .unwrap_or_default()
}
