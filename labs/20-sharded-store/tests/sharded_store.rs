//! Tests for lab 20, written once: labs/20-sharded-store and solutions/20-sharded-store
//! both run this file.
//!
//! Every test hands `run` a slice of its own, a `Probe`: a map that records, for every
//! operation, which shard and which thread served it, and that holds an `Rc` (so it is
//! not `Send`) and a reference to the test's log (so it is not `'static`). The apps are
//! the test's clients, one per shard, running on the shards' threads. A key that starts
//! with "stall" holds its shard's thread still inside the slice until the app that asked
//! lets go, so a test can fill a queue, or keep every answer back, at a moment it picks.
//!
//! A wrong answer fails fast for the reason it is wrong, never hangs: the store must be
//! idle before a test begins (a shard that spins is caught there), and stop once every
//! app has finished (a store whose threads all sleep, or spin, instead is caught then,
//! with the likely cause); each test also runs under a wall-clock net, `LIMIT`. On the
//! test's side, locks are fine: the lesson applies to the store, not to its probes.
#![allow(
    clippy::disallowed_types,
    reason = "the probes log from every shard's thread: the test's locks and Arc, not the store's"
)]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{self as std_mpsc, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::{join_all, poll_fn};
use lab_support::{OsThread, Tripwire};
use sharded_store::{Config, Slice, Store, StoreError, run, shard_for};
use tokio::sync::watch;

/// Each test's wall-clock net. Correct runs take milliseconds even on a busy machine; the
/// tests' own checks fail a wrong answer long before this.
const LIMIT: Duration = Duration::from_secs(5);

/// Once every app has finished, the shards only have to see their queues close and their
/// threads end. A store that does not stop is caught by what its threads do (Linux): all
/// asleep for `STILL` with nobody waking, or more than `SPUN` of CPU between them. These
/// do not depend on how busy the machine is. Elsewhere `run` has `STOP_LIMIT` to return.
const STILL: Duration = Duration::from_millis(100);
const SPUN: Duration = Duration::from_millis(100);
const STOP_LIMIT: Duration = Duration::from_secs(2);

thread_local! {
    /// The running test's watchdog, which `Shutdown` trips when the store never stops.
    static TRIPWIRE: RefCell<Option<Tripwire>> = const { RefCell::new(None) };
}

/// Runs a test body on a thread of its own, under the wall-clock net.
fn store_test<T: Send + 'static>(why: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let why = format!(
        "{why}. Common causes: a shard that waits for its own app before serving others; \
         a call whose answer never comes (a request dropped while its sender is kept); a \
         shard's thread held still on the thread of the app that must let it go"
    );
    lab_support::within_tripwire(LIMIT, &why, move |tripwire| {
        TRIPWIRE.set(Some(tripwire));
        f()
    })
}

/// Polls of an app that waits while nothing is sent to its shard: one, and one when the
/// wait ends, with room to spare. A shard that waits for its queue wakes its task once
/// for every request, and once when the queue closes.
const IDLE_POLLS: usize = 10;

/// Watches a store through a test. Wrap the apps with [`Shutdown::apps`] and call
/// [`Shutdown::returned`] once `run` returns. Two checks, each failing the test at once
/// with the likely cause:
///
/// - the start line: every app first waits until every shard's thread has gone to sleep
///   (Linux; elsewhere it goes on at once), counting its polls, so a shard that never
///   sleeps is caught before it can slow the test down;
/// - the finish: once the last app has ended, the store's threads (the shards' and the
///   one that called `run`) must end; if they all sleep with nobody waking, or go on
///   burning CPU, the test fails then.
struct Shutdown {
    ended: std_mpsc::Sender<()>,
    returned: std_mpsc::Sender<()>,
    /// Each app's thread, once it waits at the start line.
    waiting: std_mpsc::Sender<Option<OsThread>>,
    start: Arc<StartLine>,
    tripwire: Tripwire,
}

/// Opened by the watch once every shard's thread sleeps: the store is idle.
#[derive(Default)]
struct StartLine {
    open: AtomicBool,
    wakers: Mutex<Vec<Waker>>,
}

impl Shutdown {
    fn watch(shards: usize) -> Shutdown {
        let tripwire = TRIPWIRE
            .with_borrow(Clone::clone)
            .expect("Shutdown::watch runs inside store_test");
        let (ended, apps_ended) = std_mpsc::channel();
        let (returned, run_returned) = std_mpsc::channel();
        let (waiting, apps_waiting) = std_mpsc::channel::<Option<OsThread>>();
        let start = Arc::new(StartLine::default());
        let (trip, line) = (tripwire.clone(), Arc::clone(&start));
        let body = OsThread::current();
        thread::spawn(move || {
            // The start line: every app waits, and every thread they run on sleeps.
            let threads: Vec<_> = apps_waiting.iter().take(shards).collect();
            let asleep = |thread: &Option<OsThread>| {
                thread.is_none_or(|thread| thread.asleep() != Some(false))
            };
            let deadline = Instant::now() + LIMIT;
            while !threads.iter().all(asleep) && Instant::now() < deadline {
                thread::sleep(Duration::from_micros(100));
            }
            line.open.store(true, SeqCst);
            line.wakers.lock().unwrap().drain(..).for_each(Waker::wake);
            // The finish.
            for _ in 0..shards {
                if apps_ended.recv().is_err() {
                    return; // the test is over
                }
            }
            if let Some(why) = never_stops(&threads, body, &run_returned) {
                trip.trip(why);
            }
        });
        Shutdown {
            ended,
            returned,
            waiting,
            start,
            tripwire,
        }
    }

    /// The app, behind the start line, telling this watch when each copy of it ends (or
    /// is dropped, by a panic).
    fn apps<'a, 't, F: Future>(
        &'a self,
        app: impl Fn(Store<Probe<'t>>) -> F + Sync + 'a,
    ) -> impl Fn(Store<Probe<'t>>) -> Watched<'a, F> + Sync + 'a {
        move |store| Watched {
            shard: store.shard(),
            app: Box::pin(app(store)),
            watch: self,
            idle_polls: 0,
            started: false,
            _ended: Ended(&self.ended),
        }
    }

    fn returned(self) {
        let _ = self.returned.send(());
    }
}

/// Waits for `run` to return once every app has finished; says why the store never
/// stopped if it does not. `shards` are the threads the apps ran on, `body` the one that
/// called `run` (both `None` off Linux).
fn never_stops(
    shards: &[Option<OsThread>],
    body: Option<OsThread>,
    run_returned: &std_mpsc::Receiver<()>,
) -> Option<String> {
    const HELD: &str = "A shard's loop ends when every sender of its queue is gone and the \
        queue is empty, so something still holds a sender: a `Store` that a shard's thread \
        keeps next to the one it gives its app, or a sender `run` kept";
    let mut watched: Vec<OsThread> = Vec::new();
    for thread in shards.iter().flatten().chain(&body) {
        if !watched.contains(thread) {
            watched.push(*thread);
        }
    }
    let Some(body) = body.filter(|_| watched.len() > 1) else {
        return match run_returned.recv_timeout(STOP_LIMIT) {
            Err(RecvTimeoutError::Timeout) => Some(format!(
                "every app had finished, but run had not returned {STOP_LIMIT:?} later: the \
                 shards never stopped. {HELD}, or a loop that goes on after recv() says None"
            )),
            _ => None,
        };
    };
    // CPU time and sleeps of a thread, from /proc; None once it has ended.
    let look = |thread: &OsThread| {
        let stat = fs::read_to_string(format!("/proc/self/task/{}/schedstat", thread.tid()));
        let cpu = stat.ok()?.split_whitespace().next()?.parse::<u64>().ok()?;
        Some((cpu, thread.asleep()?, thread.sleeps()?))
    };
    let mut cpu_at_end: Vec<Option<u64>> = watched.iter().map(|t| look(t).map(|l| l.0)).collect();
    let mut cpu_used = vec![0u64; watched.len()];
    let mut still_since: Option<(Instant, Vec<Option<u64>>)> = None;
    let deadline = Instant::now() + LIMIT;
    loop {
        match run_returned.recv_timeout(Duration::from_millis(20)) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return None,
        }
        let now: Vec<_> = watched.iter().map(look).collect();
        for (i, l) in now.iter().enumerate() {
            if let (Some((cpu, _, _)), Some(start)) = (l, cpu_at_end[i]) {
                cpu_used[i] = cpu.saturating_sub(start);
            } else if cpu_at_end[i].is_none() {
                cpu_at_end[i] = l.map(|l| l.0);
            }
        }
        let spun = Duration::from_nanos(cpu_used.iter().sum());
        if spun > SPUN {
            return Some(format!(
                "every app had finished, but run did not return and the store's threads \
                 went on running ({} ms of CPU between them, where stopping takes a few): \
                 the shards never stopped. A shard's loop that goes round again after \
                 recv() says None spins on its closed queue; end the loop there",
                spun.as_millis()
            ));
        }
        // Still: a shard's thread alive, every thread alive asleep, nobody woken since.
        let shard_alive = now[..]
            .iter()
            .zip(&watched)
            .any(|(l, t)| *t != body && l.is_some());
        let all_asleep = now.iter().flatten().all(|&(_, asleep, _)| asleep);
        let sleeps: Vec<Option<u64>> = now.iter().map(|l| l.map(|l| l.2)).collect();
        if shard_alive && all_asleep {
            match &still_since {
                Some((since, before)) if *before == sleeps => {
                    if since.elapsed() >= STILL {
                        return Some(format!(
                            "every app had finished, but run did not return: the store's \
                             threads all went to sleep and stayed asleep, the shards waiting \
                             for requests that can never come. {HELD}"
                        ));
                    }
                }
                _ => still_since = Some((Instant::now(), sleeps)),
            }
        } else {
            still_since = None;
        }
        if Instant::now() > deadline {
            return Some(format!(
                "every app had finished, but run had not returned {LIMIT:?} later: the \
                 shards never stopped. {HELD}, or a loop that goes on after recv() says None"
            ));
        }
    }
}

/// One app, watched: it waits at the start line, then runs, and says when it ends.
struct Watched<'a, F> {
    shard: usize,
    app: Pin<Box<F>>,
    watch: &'a Shutdown,
    idle_polls: usize,
    started: bool,
    _ended: Ended<'a>,
}

impl<F: Future> Future for Watched<'_, F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        let start = &this.watch.start;
        if !this.started {
            if this.idle_polls == 0 {
                let _ = this.watch.waiting.send(OsThread::current());
            }
            this.idle_polls += 1;
            if !start.open.load(SeqCst) {
                if this.idle_polls > IDLE_POLLS {
                    let why = format!(
                        "while the store was idle, before the test had sent anything, shard \
                         {}'s app was polled {} times and the shards' threads never all went \
                         to sleep: something wakes the shard again and again. A shard's loop \
                         that polls its queue (try_recv in a loop, with yield_now between) \
                         keeps its thread busy for nothing; await recv(), which wakes the \
                         shard only when a request comes or the queue closes",
                        this.shard, this.idle_polls
                    );
                    this.watch.tripwire.trip(why.clone());
                    panic!("{why}");
                }
                start.wakers.lock().unwrap().push(cx.waker().clone());
                if !start.open.load(SeqCst) {
                    return Poll::Pending;
                }
            }
            this.started = true;
        }
        this.app.as_mut().poll(cx)
    }
}

struct Ended<'a>(&'a std_mpsc::Sender<()>);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

// ANCHOR: probe
/// What one operation on a slice looked like.
#[derive(Clone, Debug)]
struct Op {
    /// The shard whose slice served it, and the thread it ran on.
    shard: usize,
    thread: ThreadId,
    key: String,
    /// `Some(value)` for a put, `None` for a get.
    put: Option<String>,
}

/// The test's record of everything the slices did. Shared by every shard's probe.
#[derive(Default)]
struct Log {
    /// (shard, thread) of every slice built, and of every slice dropped.
    built: Mutex<Vec<(usize, ThreadId)>>,
    dropped: Mutex<Vec<(usize, ThreadId)>>,
    ops: Mutex<Vec<Op>>,
    /// The shard of every slice's `len()`, in the order they were counted.
    counted: Mutex<Vec<usize>>,
    /// Shards held still: see `Stalls`.
    stalls: Stalls,
}

/// The slice the tests hand to `run`: a map that writes down every operation.
struct Probe<'t> {
    shard: usize,
    map: HashMap<String, String>,
    log: &'t Log,
    /// Real state is rarely `Send`; this one is not either.
    _not_send: Rc<()>,
}

impl<'t> Probe<'t> {
    fn new(shard: usize, log: &'t Log) -> Self {
        log.built
            .lock()
            .unwrap()
            .push((shard, thread::current().id()));
        Probe {
            shard,
            map: HashMap::new(),
            log,
            _not_send: Rc::new(()),
        }
    }

    fn record(&self, key: &str, put: Option<&str>) {
        self.log.ops.lock().unwrap().push(Op {
            shard: self.shard,
            thread: thread::current().id(),
            key: key.to_owned(),
            put: put.map(str::to_owned),
        });
    }
}

impl Slice for Probe<'_> {
    fn get(&self, key: &str) -> Option<String> {
        let value = self.map.get(key).cloned();
        self.record(key, None);
        value
    }

    fn put(&mut self, key: String, value: String) -> Option<String> {
        if value == "panic" {
            panic!("the test's slice panics on purpose (shard {})", self.shard);
        }
        if key.starts_with("stall") {
            self.log.stalls.stall(self.shard);
        }
        let old = self.map.insert(key.clone(), value.clone());
        self.record(&key, Some(&value));
        old
    }

    fn len(&self) -> usize {
        self.log.counted.lock().unwrap().push(self.shard);
        self.map.len()
    }
}

impl Drop for Probe<'_> {
    fn drop(&mut self) {
        let here = thread::current().id();
        self.log.dropped.lock().unwrap().push((self.shard, here));
    }
}
// ANCHOR_END: probe

/// Shards a test holds still. A put on a key that starts with "stall" blocks its shard's
/// thread inside the slice, so its queue fills and nothing it owes is answered, until
/// the app that holds the `Hold` lets go (or drops it, also by panicking).
#[derive(Default)]
struct Stalls {
    /// How many shards are held now.
    held: watch::Sender<usize>,
    let_go: Mutex<bool>,
    go: Condvar,
    /// The thread of the app holding the shards: a shard held on it could never go on.
    holder: Mutex<Option<ThreadId>>,
}

impl Stalls {
    /// Called by the app that will hold shards still; lets them go when dropped.
    fn hold(&self) -> Hold<'_> {
        *self.holder.lock().unwrap() = Some(thread::current().id());
        Hold(self)
    }

    /// Waits until `n` shards are held.
    async fn until_held(&self, n: usize) {
        let _ = self.held.subscribe().wait_for(|&held| held >= n).await;
    }

    /// On a shard's thread, inside its slice: waits to be let go.
    fn stall(&self, shard: usize) {
        assert_ne!(
            *self.holder.lock().unwrap(),
            Some(thread::current().id()),
            "shard {shard}'s slice was held still on the very thread of the app that must \
             let it go, so neither could ever go on: two shards share a thread. Each shard \
             needs a thread of its own (std::thread::scope), with its own runtime"
        );
        self.held.send_modify(|held| *held += 1);
        let let_go = self.let_go.lock().unwrap();
        let (let_go, waited) = self
            .go
            .wait_timeout_while(let_go, LIMIT, |let_go| !*let_go)
            .unwrap();
        drop(let_go);
        assert!(
            !waited.timed_out(),
            "the test never let shard {shard} go on: the app holding it is stuck"
        );
    }
}

/// Lets every held shard go on, at the latest when dropped.
struct Hold<'a>(&'a Stalls);

impl Hold<'_> {
    fn let_go(&self) {
        *self.0.let_go.lock().unwrap() = true;
        self.0.go.notify_all();
    }
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        self.let_go();
    }
}

/// The first `count` keys `{prefix}{i}` that `shard_for` gives to `shard`.
fn keys_on(shard: usize, shards: usize, prefix: &str, count: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("{prefix}{i}"))
        .filter(|key| shard_for(key, shards) == shard)
        .take(count)
        .collect()
}

/// "shard 1", "shards 2 and 3", "no shard": for messages.
fn shards(list: &[usize]) -> String {
    match list {
        [] => "no shard".to_owned(),
        [one] => format!("shard {one}"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(ToString::to_string).collect();
            format!("shards {} and {last}", rest.join(", "))
        }
    }
}

/// Sets `done` when dropped, even by a panic: the app that leads a test holds one, so
/// that the others stop waiting if it dies.
struct SetOnDrop<'a>(&'a watch::Sender<bool>);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.send_replace(true);
    }
}

/// Every app waits here at its end until `done` is set, so that no shard stops while
/// another test app may still call it: only the test about shutdown lets apps end early.
async fn until(done: &watch::Sender<bool>) {
    let mut done = done.subscribe();
    let _ = done.wait_for(|&done| done).await;
}

// ---- Routing --------------------------------------------------------------------------

#[test]
fn shard_for_is_the_same_on_every_thread() {
    store_test("shard_for did not return", || {
        let keys: Vec<String> = (0..1000).map(|i| format!("user:{i}")).collect();
        let here: Vec<usize> = keys.iter().map(|k| shard_for(k, 4)).collect();
        let others: Vec<Vec<usize>> = thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|_| s.spawn(|| keys.iter().map(|k| shard_for(k, 4)).collect()))
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        for (i, there) in others.iter().enumerate() {
            let differ = keys.iter().zip(&here).zip(there);
            if let Some(((key, a), b)) = differ.clone().find(|((_, a), b)| a != b) {
                panic!(
                    "shard_for({key:?}, 4) is {a} on one thread and {b} on thread {i}: a \
                     hasher with per-thread random keys (RandomState) sends the same key to \
                     different shards from different threads. Use one with fixed keys, \
                     such as std::hash::DefaultHasher::new()"
                );
            }
        }
        for key in &keys {
            assert!(
                shard_for(key, 4) < 4,
                "shard_for({key:?}, 4) is out of range"
            );
            assert_eq!(shard_for(key, 1), 0, "with one shard, it owns every key");
        }
    });
}

#[test]
fn shard_for_spreads_keys_over_every_shard() {
    store_test("shard_for did not return", || {
        for shards in [2, 3, 4, 7] {
            let mut count = vec![0usize; shards];
            for i in 0..10_000 {
                count[shard_for(&format!("key-{i}"), shards)] += 1;
            }
            let fair = 10_000 / shards;
            assert!(
                count.iter().all(|&c| c > fair / 2 && c < fair * 3 / 2),
                "10,000 keys over {shards} shards fell {count:?}: hash the whole key, and \
                 take the hash modulo the number of shards"
            );
        }
    });
}

// ---- Ownership ------------------------------------------------------------------------

// ANCHOR: owner
#[test]
fn every_key_is_served_by_its_owner_and_seen_by_every_shard() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 4;
        let log = Log::default();
        let keys: Vec<String> = (0..200).map(|i| format!("k{i}")).collect();
        let all_put = tokio::sync::Barrier::new(SHARDS);
        let (done, _) = watch::channel(false);
        let finished = AtomicUsize::new(0);
        let (log, keys, all_put, done, finished) = (&log, &keys, &all_put, &done, &finished);
        let config = Config {
            shards: SHARDS,
            queue: 64,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                let me = store.shard();
                // Each app writes a quarter of the keys, wherever they live...
                let mut wrote = Vec::new();
                for (i, key) in keys.iter().enumerate().filter(|(i, _)| i % SHARDS == me) {
                    wrote.push((key.clone(), store.put(key, &format!("v{i}")).await));
                }
                all_put.wait().await;
                // ...then reads every key, from every shard.
                let mut read = Vec::new();
                for key in keys {
                    read.push((key.clone(), store.get(key).await));
                }
                if finished.fetch_add(1, SeqCst) + 1 == SHARDS {
                    done.send_replace(true);
                }
                until(done).await;
                (me, wrote, read)
            }),
        );
        shutdown.returned();
        let got = got.expect("run returned an error");
        // The apps' results come back in shard order.
        let order: Vec<usize> = got.iter().map(|(me, _, _)| *me).collect();
        assert_eq!(
            order,
            [0, 1, 2, 3],
            "run returns the apps' results in shard order"
        );
        for (me, wrote, read) in &got {
            for (key, old) in wrote {
                assert_eq!(old, &Ok(None), "put({key:?}) from shard {me}");
            }
            for (i, (key, value)) in read.iter().enumerate() {
                assert_eq!(
                    value,
                    &Ok(Some(format!("v{i}"))),
                    "shard {me} read {key:?} after every put had been answered"
                );
            }
        }

        // Every slice was built on a thread of its own, not the caller's.
        let built = log.built.lock().unwrap().clone();
        let shards: BTreeSet<usize> = built.iter().map(|(s, _)| *s).collect();
        let threads: HashSet<ThreadId> = built.iter().map(|(_, t)| *t).collect();
        assert_eq!(built.len(), SHARDS, "one slice per shard: {built:?}");
        assert_eq!(shards.len(), SHARDS, "one slice per shard: {built:?}");
        assert_eq!(
            threads.len(),
            SHARDS,
            "each slice on a thread of its own: {built:?}"
        );
        assert!(
            !threads.contains(&thread::current().id()),
            "the slices are built on the shards' threads, not on the thread that calls run"
        );
        let home: HashMap<usize, ThreadId> = built.into_iter().collect();

        // Every operation on a key ran on its owner's slice, on that slice's thread.
        let ops = log.ops.lock().unwrap().clone();
        assert_eq!(
            ops.len(),
            200 + 200 * SHARDS,
            "one slice operation per call"
        );
        for op in &ops {
            let owner = shard_for(&op.key, SHARDS);
            assert_eq!(
                op.shard, owner,
                "{:?} was served by shard {}, but shard_for says shard {owner} owns it",
                op.key, op.shard
            );
            assert_eq!(
                op.thread, home[&op.shard],
                "a slice was used off its own thread"
            );
        }
    });
}
// ANCHOR_END: owner

#[test]
fn a_call_for_a_key_this_shard_owns_is_served_on_the_spot() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 3;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let finished = AtomicUsize::new(0);
        let (log, done, finished) = (&log, &done, &finished);
        let config = Config {
            shards: SHARDS,
            queue: 64,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                let me = store.shard();
                let mut misses = Vec::new();
                for key in keys_on(me, SHARDS, &format!("local-{me}-"), 20) {
                    // Polled once, with no chance to wait: the owner is this thread.
                    match store.put(&key, "here").now_or_never() {
                        Some(Ok(None)) => {}
                        other => misses.push(format!("put({key:?}) gave {other:?}")),
                    }
                    match store.get(&key).now_or_never() {
                        Some(Ok(Some(v))) if v == "here" => {}
                        other => misses.push(format!("get({key:?}) gave {other:?}")),
                    }
                }
                // Keys owned elsewhere still work (they just take a hop).
                let away = keys_on((me + 1) % SHARDS, SHARDS, &format!("away-{me}-"), 5);
                for key in &away {
                    if store.put(key, "there").await != Ok(None) {
                        misses.push(format!("put({key:?}) to another shard failed"));
                    }
                }
                if finished.fetch_add(1, SeqCst) + 1 == SHARDS {
                    done.send_replace(true);
                }
                until(done).await;
                misses
            }),
        );
        shutdown.returned();
        for (shard, misses) in got.expect("run returned an error").iter().enumerate() {
            assert!(
                misses.is_empty(),
                "on shard {shard}, a call for a key this shard owns was not answered on \
                 its first poll (None means it waited: a message to itself, instead of \
                 the slice it already holds): {misses:#?}"
            );
        }
        let ops = log.ops.lock().unwrap();
        assert_eq!(ops.len(), SHARDS * (40 + 5), "one slice operation per call");
        assert!(ops.iter().all(|op| op.shard == shard_for(&op.key, SHARDS)));
    });
}

// ---- Order ----------------------------------------------------------------------------

// ANCHOR: order
#[test]
fn each_key_sees_one_order_under_concurrent_clients() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 3;
        const CLIENTS: usize = 6;
        const STEPS: usize = 30;
        let hot: Vec<String> = (0..6).map(|i| format!("hot-{i}")).collect();
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let finished = AtomicUsize::new(0);
        let (log, hot, done, finished) = (&log, &hot, &done, &finished);
        // 18 clients at most wait on one shard at a time: the queues never fill.
        let config = Config {
            shards: SHARDS,
            queue: 64,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                let me = store.shard();
                let seen = RefCell::new(Vec::new());
                // Six clients per shard, all at once, on the same few keys.
                join_all((0..CLIENTS).map(|c| {
                    let (store, seen) = (&store, &seen);
                    async move {
                        for step in 0..STEPS {
                            let key = &hot[(c * 7 + step * (me + 1)) % hot.len()];
                            let value = format!("s{me}c{c}n{step:02}");
                            let old = store.put(key, &value).await;
                            let now = store.get(key).await;
                            seen.borrow_mut().push((key.clone(), value, old, now));
                        }
                    }
                }))
                .await;
                if finished.fetch_add(1, SeqCst) + 1 == SHARDS {
                    done.send_replace(true);
                }
                until(done).await;
                seen.into_inner()
            }),
        );
        shutdown.returned();
        let got = got.expect("run returned an error");

        // Each key's history: the puts its owner's slice applied, in the order applied.
        let ops = log.ops.lock().unwrap().clone();
        let mut history: BTreeMap<&str, Vec<&Op>> = BTreeMap::new();
        for op in ops.iter().filter(|op| op.put.is_some()) {
            history.entry(&op.key).or_default().push(op);
        }
        for (key, puts) in &history {
            let shards: BTreeSet<usize> = puts.iter().map(|op| op.shard).collect();
            assert_eq!(
                shards,
                BTreeSet::from([shard_for(key, SHARDS)]),
                "{key:?} was written on shards {shards:?}: one key, one owner, or there is \
                 no single order for its writes"
            );
        }
        let position = |key: &str, value: &str| {
            history[key]
                .iter()
                .position(|op| op.put.as_deref() == Some(value))
                .unwrap_or_else(|| panic!("the put of {value:?} on {key:?} never reached a slice"))
        };
        for (shard, seen) in got.iter().enumerate() {
            let mut last: HashMap<(&str, &str), usize> = HashMap::new();
            for (key, value, old, now) in seen {
                let at = position(key, value);
                // The answer to each put is the value just before it in the key's history.
                let before = at
                    .checked_sub(1)
                    .and_then(|i| history[key.as_str()][i].put.clone());
                assert_eq!(
                    old,
                    &Ok(before),
                    "put({key:?}, {value:?}) from shard {shard} got the wrong old value: \
                     its answer is not the answer to its own request"
                );
                // A client's own writes keep their order...
                let client = &value[..value.find('n').unwrap()];
                if let Some(&prev) = last.get(&(key.as_str(), client)) {
                    assert!(
                        prev < at,
                        "client {client}'s writes to {key:?} were reordered"
                    );
                }
                last.insert((key.as_str(), client), at);
                // ...and a read after a write sees that write or a later one.
                let now = now.clone().expect("get failed").expect("get found nothing");
                assert!(
                    position(key, &now) >= at,
                    "{client} wrote {value:?} to {key:?}, then read an older value {now:?}"
                );
            }
        }
        let total: usize = history.values().map(Vec::len).sum();
        assert_eq!(
            total,
            SHARDS * CLIENTS * STEPS,
            "every put applied exactly once"
        );
    });
}
// ANCHOR_END: order

// ANCHOR: fifo
#[test]
fn a_shard_serves_its_queue_first_come_first_served() {
    store_test("the store did not finish", || {
        const SENT: usize = 8;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (log, done) = (&log, &done);
        let config = Config {
            shards: 2,
            queue: 16,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                if store.shard() == 0 {
                    until(done).await;
                    return None;
                }
                let _done = SetOnDrop(done);
                // Shard 1 holds shard 0's thread still inside its slice...
                let hold = log.stalls.hold();
                let stall_key = &keys_on(0, 2, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalls.until_held(1) => {}
                }
                // ...sends it eight puts to one key and then a get, all at once, so that
                // they wait in its queue in that order, and lets it go on.
                let key = &keys_on(0, 2, "fifo-", 1)[0];
                let values: Vec<String> = (1..=SENT).map(|i| format!("v{i}")).collect();
                let puts = join_all(values.iter().map(|value| store.put(key, value)));
                let let_go = async {
                    tokio::task::yield_now().await;
                    hold.let_go();
                };
                let (_, puts, get, ()) = futures::join!(stall, puts, store.get(key), let_go);
                Some((key.clone(), puts, get))
            }),
        );
        shutdown.returned();
        let (key, puts, get) = got.expect("run returned an error")[1].clone().unwrap();
        let applied: Vec<String> = log
            .ops
            .lock()
            .unwrap()
            .iter()
            .filter(|op| op.key == key)
            .filter_map(|op| op.put.clone())
            .collect();
        let sent: Vec<String> = (1..=SENT).map(|i| format!("v{i}")).collect();
        assert_eq!(
            applied, sent,
            "shard 0 had eight puts to {key:?} waiting in its queue, sent v1 to v8 in that \
             order, and applied them in another: a shard serves its queue first come, first \
             served (one recv() at a time, or a batch in the order it came), or a client's \
             earlier write lands after its later one"
        );
        let olds: Vec<_> = (0..SENT)
            .map(|i| Ok((i > 0).then(|| format!("v{i}"))))
            .collect();
        assert_eq!(
            puts, olds,
            "each put's answer is the value sent just before it"
        );
        assert_eq!(
            get,
            Ok(Some(format!("v{SENT}"))),
            "a get queued after the eight puts sees the last of them"
        );
    });
}
// ANCHOR_END: fifo

// ---- Scatter/gather ---------------------------------------------------------------------

// ANCHOR: len
#[test]
fn len_counts_every_shard_while_writes_go_on() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 4;
        const PER_CLIENT: usize = 100;
        const TOTAL: usize = (SHARDS - 1) * 3 * PER_CLIENT;
        let log = Log::default();
        let (started, acked, writers) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        let (done, _) = watch::channel(false);
        let (log, started, acked, writers, done) = (&log, &started, &acked, &writers, &done);
        let config = Config {
            shards: SHARDS,
            queue: 64,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                let me = store.shard();
                if me != 0 {
                    // Shards 1 to 3 insert new keys, three clients each.
                    join_all((0..3).map(|c| {
                        let store = &store;
                        async move {
                            for n in 0..PER_CLIENT {
                                started.fetch_add(1, SeqCst);
                                let old = store.put(&format!("w{me}-{c}-{n}"), "x").await;
                                if old == Ok(None) {
                                    acked.fetch_add(1, SeqCst);
                                }
                            }
                        }
                    }))
                    .await;
                    writers.fetch_add(1, SeqCst);
                    until(done).await;
                    return Vec::new();
                }
                // Shard 0 counts the whole store again and again meanwhile.
                let mut counts = Vec::new();
                loop {
                    let last = writers.load(SeqCst) == SHARDS - 1;
                    let low = acked.load(SeqCst);
                    let len = store.len().await;
                    let high = started.load(SeqCst);
                    counts.push((low, len, high));
                    if last {
                        break;
                    }
                    tokio::task::yield_now().await;
                }
                done.send_replace(true);
                counts
            }),
        );
        shutdown.returned();
        let counts = got.expect("run returned an error").swap_remove(0);
        let mut previous = 0;
        for &(low, len, high) in &counts {
            let len = len.unwrap_or_else(|e| panic!("len() failed: {e}"));
            assert!(
                low <= len && len <= high,
                "len() said {len} while {low} inserts had been answered and {high} begun: \
                 it must count every shard's slice, each once"
            );
            assert!(len >= previous, "len() went down, from {previous} to {len}");
            previous = len;
        }
        let (_, last, _) = counts.last().unwrap();
        assert_eq!(last, &Ok(TOTAL), "len() once every insert was answered");
    });
}
// ANCHOR_END: len

// ANCHOR: scatter
#[test]
fn len_asks_every_shard_before_it_awaits_an_answer() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 4;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (log, done) = (&log, &done);
        let config = Config {
            shards: SHARDS,
            queue: 8,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                if store.shard() != 0 {
                    until(done).await;
                    return None;
                }
                let _done = SetOnDrop(done);
                // Shard 0 holds shards 1, 2 and 3 still, each inside its slice: none of
                // them can answer anything until it lets go.
                let hold = log.stalls.hold();
                let stall_keys: Vec<String> = (1..SHARDS)
                    .map(|shard| keys_on(shard, SHARDS, "stall-", 1).remove(0))
                    .collect();
                let mut stalls = pin!(join_all(stall_keys.iter().map(|k| store.put(k, "x"))));
                tokio::select! {
                    early = &mut stalls => panic!("the stalling puts returned early: {early:?}"),
                    () = log.stalls.until_held(SHARDS - 1) => {}
                }
                // One poll of len(): by its end, len() waits for an answer, so it must have
                // asked every shard already.
                let mut len = pin!(store.len());
                let first = futures::poll!(len.as_mut());
                hold.let_go();
                let _ = stalls.await;
                // Not polling len() meanwhile, ask each shard something. A shard serves its
                // queue in order, so a question that len() put there came first.
                for shard in 1..SHARDS {
                    let _ = store.get(&keys_on(shard, SHARDS, "after-", 1)[0]).await;
                }
                let asked: BTreeSet<usize> = log.counted.lock().unwrap().iter().copied().collect();
                let total = match first {
                    Poll::Ready(total) => total,
                    Poll::Pending => len.await,
                };
                Some((first.is_pending(), asked, total))
            }),
        );
        shutdown.returned();
        let (waited, asked, total) = got.expect("run returned an error")[0].clone().unwrap();
        assert!(
            waited,
            "len() answered {total:?} before shards 1 to 3, all held still, could answer it"
        );
        let missing: Vec<usize> = (1..SHARDS).filter(|s| !asked.contains(s)).collect();
        if !missing.is_empty() {
            let asked: Vec<usize> = asked.iter().copied().filter(|&s| s != 0).collect();
            panic!(
                "len() asked {}, then waited for an answer before asking {}: they would be \
                 asked only after an answer came. Ask every shard first, then await the \
                 answers together (scatter, then gather): asked one after the other, the \
                 hops add up instead of overlapping",
                shards(&asked),
                shards(&missing)
            );
        }
        assert_eq!(
            total,
            Ok(SHARDS - 1),
            "len() counts the three stalling puts"
        );
        let mut counted = log.counted.lock().unwrap().clone();
        counted.sort_unstable();
        assert_eq!(
            counted,
            (0..SHARDS).collect::<Vec<_>>(),
            "one len() counts each shard's slice once"
        );
    });
}
// ANCHOR_END: scatter

// ---- Backpressure -------------------------------------------------------------------------

// ANCHOR: busy
#[test]
fn a_full_queue_refuses_calls_at_once() {
    store_test("the store did not finish", || {
        const QUEUE: usize = 4;
        const CALLS: usize = QUEUE + 6;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (log, done) = (&log, &done);
        let config = Config {
            shards: 2,
            queue: QUEUE,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                if store.shard() == 0 {
                    until(done).await;
                    return None;
                }
                let _done = SetOnDrop(done);
                // Shard 1 holds shard 0's thread still inside its slice...
                let hold = log.stalls.hold();
                let stall_key = &keys_on(0, 2, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalls.until_held(1) => {}
                }
                // ...then calls shard 0 ten times at once. The queue holds four.
                let keys = keys_on(0, 2, "more-", CALLS);
                let answers = RefCell::new(Vec::new());
                let calls = join_all(keys.iter().map(|key| async {
                    let answer = store.put(key, "y").await;
                    answers.borrow_mut().push(answer);
                }));
                let watch = async {
                    for _ in 0..100 {
                        tokio::task::yield_now().await;
                    }
                    // Every call has been polled: those refused have answered by now.
                    let refused = answers.borrow().clone();
                    hold.let_go();
                    refused
                };
                let ((_, refused), stalled) =
                    tokio::join!(futures::future::join(calls, watch), stall);
                Some((refused, answers.into_inner(), stalled))
            }),
        );
        shutdown.returned();
        let (refused, all, stalled) = got.expect("run returned an error")[1].clone().unwrap();
        assert_eq!(
            refused,
            vec![Err(StoreError::Busy(0)); CALLS - QUEUE],
            "with shard 0 stuck and its queue holding {QUEUE} requests, {CALLS} calls at \
             once: {QUEUE} wait in the queue, the other {} fail at once with Busy(0). \
             An unbounded queue would take them all (and any number more); a caller \
             that waits for room would wait as long as the shard is stuck",
            CALLS - QUEUE
        );
        assert_eq!(stalled, Ok(None));
        let served = all.iter().filter(|a| **a == Ok(None)).count();
        assert_eq!(
            served, QUEUE,
            "the {QUEUE} queued calls are served once the shard moves: {all:?}"
        );
        assert_eq!(
            log.ops.lock().unwrap().len(),
            1 + QUEUE,
            "refused calls do nothing"
        );
    });
}
// ANCHOR_END: busy

#[test]
fn len_fails_at_once_when_a_queue_is_full() {
    store_test("the store did not finish", || {
        const QUEUE: usize = 2;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (log, done) = (&log, &done);
        let config = Config {
            shards: 3,
            queue: QUEUE,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                if store.shard() != 1 {
                    until(done).await;
                    return None;
                }
                let _done = SetOnDrop(done);
                // Shard 1 holds shard 0's thread still inside its slice...
                let hold = log.stalls.hold();
                let stall_key = &keys_on(0, 3, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalls.until_held(1) => {}
                }
                // ...fills its queue with two puts...
                let keys = keys_on(0, 3, "fill-", QUEUE);
                let mut fill = pin!(join_all(keys.iter().map(|key| store.put(key, "y"))));
                assert!(
                    futures::poll!(fill.as_mut()).is_pending(),
                    "shard 0 is held still"
                );
                // ...and counts the store: polled once, len() must have its answer.
                let len = store.len().now_or_never();
                hold.let_go();
                let (stalled, filled) = futures::join!(stall, fill);
                let after = store.len().await;
                Some((len, stalled, filled, after))
            }),
        );
        shutdown.returned();
        let (len, stalled, filled, after) = got.expect("run returned an error")[1].clone().unwrap();
        match len {
            Some(Err(StoreError::Busy(0))) => {}
            None => panic!(
                "len() did not return at once while shard 0's queue was full: it waited for \
                 room. A call to a full queue fails at once with Busy(0), and len() is a call \
                 to every shard: shed, like any other, not queued behind a shard that is stuck"
            ),
            Some(Ok(n)) => panic!(
                "len() answered Ok({n}) while shard 0's queue was full, a count that leaves \
                 shard 0 out. When a shard cannot be asked, there is no count: fail at once \
                 with Busy(0), as every call to a full queue does"
            ),
            Some(Err(other)) => panic!(
                "len() said {other:?} while shard 0's queue was full and every shard up: \
                 expected Busy(0)"
            ),
        }
        assert_eq!(stalled, Ok(None));
        assert_eq!(
            filled,
            vec![Ok(None); QUEUE],
            "the queued puts, once shard 0 moved"
        );
        assert_eq!(after, Ok(1 + QUEUE), "len() once shard 0 moved");
    });
}

// ---- Idle -------------------------------------------------------------------------------

// ANCHOR: idle
#[test]
fn an_idle_shard_sleeps_until_a_request_comes() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 3;
        const CALLS: usize = 200;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (idling, _) = watch::channel(false);
        let spun = AtomicBool::new(false);
        let (log, done, idling, spun) = (&log, &done, &idling, &spun);
        let config = Config {
            shards: SHARDS,
            queue: 8,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                match store.shard() {
                    1 => {
                        // Shard 1's app waits, counting how often its task polls it.
                        idling.send_replace(true);
                        let polls = Cell::new(0);
                        let mut wait = pin!(until(done));
                        poll_fn(|cx| {
                            polls.set(polls.get() + 1);
                            if polls.get() > IDLE_POLLS {
                                spun.store(true, SeqCst);
                                return Poll::Ready(());
                            }
                            wait.as_mut().poll(cx)
                        })
                        .await;
                        until(done).await;
                        Some(polls.get())
                    }
                    0 => {
                        // Meanwhile shard 0 calls shard 2, again and again.
                        let _done = SetOnDrop(done);
                        let _ = idling.subscribe().wait_for(|&idle| idle).await;
                        let key = &keys_on(2, SHARDS, "elsewhere-", 1)[0];
                        for call in 0..CALLS {
                            let _ = store.put(key, &call.to_string()).await;
                            if spun.load(SeqCst) {
                                break;
                            }
                        }
                        None
                    }
                    _ => {
                        until(done).await;
                        None
                    }
                }
            }),
        );
        shutdown.returned();
        let polls = got.expect("run returned an error")[1].unwrap();
        assert!(
            polls <= IDLE_POLLS,
            "shard 1 had nothing to do, yet its task polled its app more than {IDLE_POLLS} \
             times while shard 0 called shard 2: something wakes shard 1 again and again. \
             A shard's loop that polls its queue (try_recv in a loop, with yield_now or a \
             short sleep between) keeps its thread busy for nothing, and shards that share \
             one task wake each other; await recv() on a thread of the shard's own, which \
             wakes the shard only when a request comes or the queue closes"
        );
    });
}
// ANCHOR_END: idle

// ---- Failure --------------------------------------------------------------------------

// ANCHOR: panic
#[test]
fn a_shard_that_panics_fails_its_callers_and_run_says_so() {
    store_test("a call to a shard that panicked never returned", || {
        let log = Log::default();
        let report = Mutex::new(None);
        let (done, _) = watch::channel(false);
        let (log, report_to, done) = (&log, &report, &done);
        let config = Config {
            shards: 3,
            queue: 16,
        };
        let shutdown = Shutdown::watch(config.shards);
        let result = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                if store.shard() != 1 {
                    until(done).await;
                    return;
                }
                let _done = SetOnDrop(done);
                let hold = log.stalls.hold();
                let stall_key = &keys_on(0, 3, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalls.until_held(1) => {}
                }
                // While shard 0 is stuck, queue behind it: a put that will panic, then a
                // count of the whole store and a get that wait behind the panic.
                let on_0 = keys_on(0, 3, "doomed-", 2);
                let on_2 = &keys_on(2, 3, "fine-", 1)[0];
                let released = async {
                    tokio::task::yield_now().await;
                    hold.let_go();
                };
                let (stalled, panicked, len, queued, ()) = futures::join!(
                    stall,
                    store.put(&on_0[0], "panic"),
                    store.len(),
                    store.get(&on_0[1]),
                    released,
                );
                // After the panic: shard 0 stays down, the others serve on.
                let later = store.get(&on_0[1]).await;
                let elsewhere = store.put(on_2, "ok").await;
                *report_to.lock().unwrap() =
                    Some((stalled, panicked, len, queued, later, elsewhere));
            }),
        );
        shutdown.returned();
        let (stalled, panicked, len, queued, later, elsewhere) = report
            .lock()
            .unwrap()
            .take()
            .expect("shard 1's app did not finish: did a caller panic when its shard did?");
        use StoreError::Down;
        assert_eq!(stalled, Ok(None), "the put served before the panic");
        assert_eq!(
            panicked,
            Err(Down(0)),
            "the call whose request panicked shard 0"
        );
        assert_eq!(len, Err(Down(0)), "len() queued behind the panic");
        assert_eq!(queued, Err(Down(0)), "a get queued behind the panic");
        assert_eq!(later, Err(Down(0)), "a get sent after the panic");
        assert_eq!(elsewhere, Ok(None), "a put to shard 2, still serving");
        assert_eq!(
            result.err(),
            Some(StoreError::Panicked(0)),
            "run reports the shard that panicked, as an error (not a panic of its own, \
             and not Ok: a lost panic is a lost error)"
        );
    });
}
// ANCHOR_END: panic

#[test]
fn run_reports_the_lowest_numbered_shard_that_panicked() {
    store_test("a call to a shard that panicked never returned", || {
        const SHARDS: usize = 4;
        const ORDER: [usize; 3] = [2, 1, 3];
        let log = Log::default();
        let report = Mutex::new(None);
        let (done, _) = watch::channel(false);
        let (log, report_to, done) = (&log, &report, &done);
        let config = Config {
            shards: SHARDS,
            queue: 8,
        };
        let shutdown = Shutdown::watch(config.shards);
        let result = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                if store.shard() != 0 {
                    until(done).await;
                    return;
                }
                let _done = SetOnDrop(done);
                // Shard 0 makes shards 2, 1 and 3 panic, in that order: each answer (an
                // error) comes only once its shard has panicked.
                let mut answers = Vec::new();
                for shard in ORDER {
                    let key = &keys_on(shard, SHARDS, "doomed-", 1)[0];
                    answers.push(store.put(key, "panic").await);
                }
                *report_to.lock().unwrap() = Some(answers);
            }),
        );
        shutdown.returned();
        let answers = report
            .lock()
            .unwrap()
            .take()
            .expect("shard 0's app finished");
        let downs: Vec<_> = ORDER.iter().map(|&s| Err(StoreError::Down(s))).collect();
        assert_eq!(answers, downs, "each call whose request panicked its shard");
        assert_eq!(
            result.err(),
            Some(StoreError::Panicked(1)),
            "shards 2, 1 and 3 panicked, in that order: run reports the lowest-numbered of \
             them, shard 1, whatever the order. Join every thread, then report the lowest \
             shard that panicked, so that the same failure gives the same error every time"
        );
    });
}

// ---- Shutdown -------------------------------------------------------------------------

// ANCHOR: shutdown
#[test]
fn run_drains_every_queue_and_joins_every_thread() {
    store_test("run did not return after every app had finished", || {
        const SHARDS: usize = 4;
        let log = Log::default();
        let config = Config {
            shards: SHARDS,
            queue: 64,
        };
        let sent = AtomicUsize::new(0);
        let (log, sent_to) = (&log, &sent);
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                let me = store.shard();
                if me == 0 {
                    // Shard 0's own app ends at once; its shard must serve on.
                    return (me, 0);
                }
                let keys = keys_on(0, SHARDS, &format!("late-{me}-"), 200);
                let answered = Cell::new(0);
                let (store, answered) = (&store, &answered);
                join_all(keys.chunks(50).map(|chunk| async move {
                    for key in chunk {
                        sent_to.fetch_add(1, SeqCst);
                        if store.put(key, "v").await == Ok(None) {
                            answered.set(answered.get() + 1);
                        }
                    }
                }))
                .await;
                (me, answered.get())
            }),
        );
        shutdown.returned();
        let got = got.expect("run returned an error");
        // The moment run returns, every slice has been dropped, each on its own thread:
        // every thread has ended.
        let built: HashSet<_> = log.built.lock().unwrap().iter().copied().collect();
        let dropped: HashSet<_> = log.dropped.lock().unwrap().iter().copied().collect();
        assert_eq!(
            dropped, built,
            "when run returns, every shard's slice is dropped, on its own thread: nothing of \
             the store is still running"
        );
        assert_eq!(
            got,
            vec![(0, 0), (1, 200), (2, 200), (3, 200)],
            "(shard, calls answered): shard 0's app ended first, and its shard must still \
             answer all {} calls the other apps send it afterwards, but some were lost. A \
             shard serves until every handle on the store is gone (recv() says None), not \
             until its own app ends or its queue is empty for a moment",
            sent.load(SeqCst)
        );
        let ops = log.ops.lock().unwrap();
        assert_eq!(ops.len(), 600);
        assert!(ops.iter().all(|op| op.shard == 0));
    });
}
// ANCHOR_END: shutdown
