//! Tests for lab 20, written once: labs/20-sharded-store and solutions/20-sharded-store
//! both run this file.
//!
//! Every test hands `run` a partition of its own, a `Probe`: a map that records, for every
//! operation, which shard and which thread served it, and that holds an `Rc` (so it is
//! not `Send`) and a reference to the test's log (so it is not `'static`). The apps are
//! the test's clients, one per shard, running on the shards' threads. A key that starts
//! with "stall" holds its shard's thread still inside the partition until the app that asked
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
use sharded_store::{Config, Partition, Store, StoreError, run, shard_for};
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
/// What one operation on a partition looked like.
#[derive(Clone, Debug)]
struct Op {
    /// The shard whose partition served it, and the thread it ran on.
    shard: usize,
    thread: ThreadId,
    key: String,
    /// `Some(value)` for a put, `None` for a get.
    put: Option<String>,
}

/// The test's record of everything the partitions did. Shared by every shard's probe.
#[derive(Default)]
struct Log {
    /// (shard, thread) of every partition built, and of every partition dropped.
    built: Mutex<Vec<(usize, ThreadId)>>,
    dropped: Mutex<Vec<(usize, ThreadId)>>,
    ops: Mutex<Vec<Op>>,
    /// The shard of every partition's `len()`, in the order they were counted.
    counted: Mutex<Vec<usize>>,
    /// Shards held still: see `Stalls`.
    stalls: Stalls,
}

/// The partition the tests hand to `run`: a map that writes down every operation.
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

impl Partition for Probe<'_> {
    fn get(&self, key: &str) -> Option<String> {
        let value = self.map.get(key).cloned();
        self.record(key, None);
        value
    }

    fn put(&mut self, key: String, value: String) -> Option<String> {
        if value == "panic" {
            panic!(
                "the test's partition panics on purpose (shard {})",
                self.shard
            );
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
/// thread inside the partition, so its queue fills and nothing it owes is answered, until
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

    /// On a shard's thread, inside its partition: waits to be let go.
    fn stall(&self, shard: usize) {
        assert_ne!(
            *self.holder.lock().unwrap(),
            Some(thread::current().id()),
            "shard {shard}'s partition was held still on the very thread of the app that must \
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
fn shard_list(list: &[usize]) -> String {
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

/// How 10,000 keys made by `key(i)` fall over `shards` shards, if unevenly: some shard
/// has fewer than half its fair share, or more than half as much again.
fn uneven(shards: usize, key: impl Fn(usize) -> String) -> Option<Vec<usize>> {
    let mut count = vec![0usize; shards];
    for i in 0..10_000 {
        count[shard_for(&key(i), shards)] += 1;
    }
    let fair = 10_000 / shards;
    let even = count.iter().all(|&c| c > fair / 2 && c < fair * 3 / 2);
    (!even).then_some(count)
}

#[test]
fn shard_for_spreads_keys_over_every_shard() {
    store_test("shard_for did not return", || {
        // Keys that hold the same bytes in another order: "user:1203" and "user:3021".
        let pairs: Vec<(String, String)> = (1000..10_000)
            .map(|i: usize| (i, i.to_string().chars().rev().collect::<String>()))
            .filter(|(i, rev)| !rev.starts_with('0') && *rev != i.to_string())
            .map(|(i, rev)| (format!("user:{i}"), format!("user:{rev}")))
            .collect();
        let same = pairs
            .iter()
            .filter(|(a, b)| shard_for(a, 4) == shard_for(b, 4))
            .count();
        assert!(
            same * 2 < pairs.len(),
            "{same} of {} pairs of keys that hold the same bytes in another order (such as \
             {:?} and {:?}) went to the same shard of 4, where a hash sends about a quarter \
             of them together: shard_for looks at which bytes a key holds and not where they \
             stand (a sum of the bytes?). Hash the whole key with a real hasher, such as \
             std::hash::DefaultHasher::new(), and take the hash modulo the number of shards",
            pairs.len(),
            pairs[0].0,
            pairs[0].1
        );
        for shards in [2, 3, 4, 7] {
            if let Some(count) = uneven(shards, |i| format!("key-{i}")) {
                panic!(
                    "10,000 keys \"key-{{i}}\" over {shards} shards fell {count:?}: hash the \
                     whole key, and take the hash modulo the number of shards"
                );
            }
            if let Some(count) = uneven(shards, |i| format!("img-{i}.png")) {
                panic!(
                    "10,000 keys \"img-{{i}}.png\" over {shards} shards fell {count:?}: keys \
                     that end alike went the same way. Routing by the last byte (or any part \
                     of the key) is not a hash: real keys share endings and beginnings. Hash \
                     the whole key"
                );
            }
        }
        for shards in [12, 17, 32] {
            if let Some(count) = uneven(shards, |i| format!("key-{i}")) {
                let fair = 10_000 / shards;
                let few: Vec<usize> = (0..shards).filter(|&s| count[s] <= fair / 2).collect();
                let many: Vec<usize> = (0..shards).filter(|&s| count[s] >= fair * 3 / 2).collect();
                panic!(
                    "10,000 keys over {shards} shards fell {count:?}: {} got half a fair share \
                     or less, {} half as much again or more. Take the hash modulo the number of \
                     shards itself: through a fixed number of slots (hash % 16, then % shards), \
                     shards past the 16th get nothing and the others split unevenly",
                    shard_list(&few),
                    shard_list(&many)
                );
            }
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
        let barrier = tokio::sync::Barrier::new(SHARDS);
        let (done, _) = watch::channel(false);
        let finished = AtomicUsize::new(0);
        let (log, keys, barrier, done, finished) = (&log, &keys, &barrier, &done, &finished);
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
                let read_all = || async {
                    let mut read = Vec::new();
                    for key in keys {
                        read.push(store.get(key).await);
                    }
                    read
                };
                // Each app reads every key before anything is written...
                let mut reads = vec![read_all().await];
                barrier.wait().await;
                // ...writes a quarter of the keys, wherever they live, and reads them all;
                // then writes another quarter over (keys that another app wrote the first
                // time), and reads them all again.
                let mut wrote = Vec::new();
                for (round, value) in ["v", "w"].into_iter().enumerate() {
                    for (i, key) in keys.iter().enumerate() {
                        if (i + round) % SHARDS == me {
                            let old = store.put(key, &format!("{value}{i}")).await;
                            wrote.push((key.clone(), round, old));
                        }
                    }
                    barrier.wait().await;
                    reads.push(read_all().await);
                    barrier.wait().await;
                }
                if finished.fetch_add(1, SeqCst) + 1 == SHARDS {
                    done.send_replace(true);
                }
                until(done).await;
                (me, store.shards(), wrote, reads)
            }),
        );
        shutdown.returned();
        let got = got.expect("run returned an error");
        // The apps' results come back in shard order.
        let order: Vec<usize> = got.iter().map(|(me, ..)| *me).collect();
        assert_eq!(
            order,
            [0, 1, 2, 3],
            "run returns the apps' results in shard order"
        );
        for (me, shards, wrote, reads) in &got {
            assert_eq!(
                *shards, SHARDS,
                "store.shards() on shard {me} said {shards} in a store of {SHARDS} shards: it \
                 counts every shard, this one included"
            );
            for (key, round, old) in wrote {
                let i: usize = key[1..].parse().unwrap();
                let expected = (*round == 1).then(|| format!("v{i}"));
                assert_eq!(old, &Ok(expected), "put({key:?}) from shard {me}");
            }
            for (round, read) in reads.iter().enumerate() {
                for (i, (key, value)) in keys.iter().zip(read).enumerate() {
                    let expected = Ok(match round {
                        0 => None,
                        1 => Some(format!("v{i}")),
                        _ => Some(format!("w{i}")),
                    });
                    if round > 0 && *value != expected && *value == reads[round - 1][i] {
                        let owner = shard_for(key, SHARDS);
                        panic!(
                            "shard {me} read {key:?} (owned by shard {owner}) once another \
                             shard's put to it had been answered, and got {value:?}, what it \
                             had read before that put: a copy of another shard's value, kept \
                             from an earlier read, goes stale the moment another shard writes \
                             the key. Only the owner knows the value: every get of a key owned \
                             elsewhere asks the owner"
                        );
                    }
                    assert_eq!(
                        value, &expected,
                        "shard {me} read {key:?} after every put of round {round} had been \
                         answered"
                    );
                }
            }
        }

        // Every partition was built on a thread of its own, not the caller's.
        let built = log.built.lock().unwrap().clone();
        let shards: BTreeSet<usize> = built.iter().map(|(s, _)| *s).collect();
        let threads: HashSet<ThreadId> = built.iter().map(|(_, t)| *t).collect();
        assert_eq!(built.len(), SHARDS, "one partition per shard: {built:?}");
        assert_eq!(shards.len(), SHARDS, "one partition per shard: {built:?}");
        assert_eq!(
            threads.len(),
            SHARDS,
            "each partition on a thread of its own: {built:?}"
        );
        assert!(
            !threads.contains(&thread::current().id()),
            "the partitions are built on the shards' threads, not on the thread that calls run"
        );
        let home: HashMap<usize, ThreadId> = built.into_iter().collect();

        // Every operation on a key ran on its owner's partition, on that partition's thread.
        let ops = log.ops.lock().unwrap().clone();
        assert_eq!(
            ops.len(),
            2 * 200 + 3 * 200 * SHARDS,
            "one partition operation per call"
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
                "a partition was used off its own thread"
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
                 the partition it already holds): {misses:#?}"
            );
        }
        let ops = log.ops.lock().unwrap();
        assert_eq!(
            ops.len(),
            SHARDS * (40 + 5),
            "one partition operation per call"
        );
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

        // Each key's history: the puts its owner's partition applied, in the order applied.
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
                .unwrap_or_else(|| {
                    panic!("the put of {value:?} on {key:?} never reached a partition")
                })
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
                // Shard 1 holds shard 0's thread still inside its partition...
                let hold = log.stalls.hold();
                let stall_key = &keys_on(0, 2, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalls.until_held(1) => {}
                }
                // ...sends it a get, eight puts to the same key and another get, all at
                // once, so that they wait in its queue in that order, and lets it go on.
                let key = &keys_on(0, 2, "fifo-", 1)[0];
                let values: Vec<String> = (1..=SENT).map(|i| format!("v{i}")).collect();
                let puts = join_all(values.iter().map(|value| store.put(key, value)));
                let let_go = async {
                    tokio::task::yield_now().await;
                    hold.let_go();
                };
                let (_, first, puts, get, ()) =
                    futures::join!(stall, store.get(key), puts, store.get(key), let_go);
                Some((key.clone(), first, puts, get))
            }),
        );
        shutdown.returned();
        let (key, first, puts, get) = got.expect("run returned an error")[1].clone().unwrap();
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
            first,
            Ok(None),
            "a get queued before eight puts to the same key saw {first:?}, a value written \
             after it was sent: the shard served puts it had taken from its queue before the \
             get that came first. Serve a batch in the order it came, reads and writes alike, \
             or a client reads a value from its future"
        );
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
                 it must count every shard's partition, each once"
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
                // Shard 0 holds shards 1, 2 and 3 still, each inside its partition: none of
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
                let mut counted = log.counted.lock().unwrap().clone();
                counted.sort_unstable();
                // Shard 0's own partition is empty; the other three hold a key each.
                let empty = store.is_empty().await;
                Some((first.is_pending(), asked, total, counted, empty))
            }),
        );
        shutdown.returned();
        let (waited, asked, total, counted, empty) =
            got.expect("run returned an error")[0].clone().unwrap();
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
                shard_list(&asked),
                shard_list(&missing)
            );
        }
        assert_eq!(
            total,
            Ok(SHARDS - 1),
            "len() counts the three stalling puts"
        );
        assert_eq!(
            counted,
            (0..SHARDS).collect::<Vec<_>>(),
            "one len() counts each shard's partition once"
        );
        assert_eq!(
            empty,
            Ok(false),
            "is_empty() on shard 0 said {empty:?} while shards 1 to 3 held a key each (shard \
             0's own partition was empty): is_empty() is about the whole store, like len(), not \
             about this shard's partition"
        );
    });
}
// ANCHOR_END: scatter

// ---- Backpressure -------------------------------------------------------------------------

// ANCHOR: busy
#[test]
fn a_full_queue_refuses_calls_at_once() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 4;
        const QUEUE: usize = 4;
        const CALLS: usize = 4;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (turn, _) = watch::channel(0);
        let (log, done, turn) = (&log, &done, &turn);
        let config = Config {
            shards: SHARDS,
            queue: QUEUE,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                let me = store.shard();
                if me == 0 {
                    until(done).await;
                    return None;
                }
                let stall_key = keys_on(0, SHARDS, "stall-", 1).remove(0);
                let mut hold = None;
                let mut stall = None;
                if me == 1 {
                    // Shard 1 holds shard 0's thread still inside its partition...
                    hold = Some((SetOnDrop(done), log.stalls.hold()));
                    let mut stalling = Box::pin(store.put(&stall_key, "x"));
                    tokio::select! {
                        early = &mut stalling => panic!("the stalling put returned early: {early:?}"),
                        () = log.stalls.until_held(1) => {}
                    }
                    stall = Some(stalling);
                } else {
                    let _ = turn.subscribe().wait_for(|&turn| turn == me).await;
                }
                // ...then shards 1, 2 and 3, in turn, each call shard 0 four times at once,
                // and see what each call says when first polled. The queue holds four.
                let keys = keys_on(0, SHARDS, &format!("more-{me}-"), CALLS);
                let mut calls: Vec<_> = keys.iter().map(|key| Box::pin(store.put(key, "y"))).collect();
                let mut first = Vec::new();
                for call in &mut calls {
                    first.push(match futures::poll!(call.as_mut()) {
                        Poll::Ready(answer) => Some(answer),
                        Poll::Pending => None,
                    });
                }
                turn.send_replace(me + 1);
                if let Some((_done, hold)) = &hold {
                    let _ = turn.subscribe().wait_for(|&turn| turn == SHARDS).await;
                    hold.let_go();
                }
                let mut last = Vec::new();
                for (call, first) in calls.into_iter().zip(&first) {
                    last.push(match first {
                        Some(answer) => answer.clone(),
                        None => call.await,
                    });
                }
                if let Some(stall) = stall {
                    assert_eq!(stall.await, Ok(None), "the stalling put");
                }
                drop(hold);
                until(done).await;
                Some((first, last))
            }),
        );
        shutdown.returned();
        let got = got.expect("run returned an error");
        let busy = Err(StoreError::Busy(0));
        for (shard, answers) in got.iter().enumerate().skip(1) {
            let (first, last) = answers.as_ref().unwrap();
            let retried = first
                .iter()
                .zip(last)
                .filter(|(f, l)| f.is_none() && **l == busy);
            assert_eq!(
                retried.count(),
                0,
                "shard {shard}'s calls to shard 0, whose queue was full, did not answer on \
                 their first poll, and later said Busy(0): the call waited (yielded and tried \
                 again?) before it gave up. A call to a full queue fails at once: one try_send, \
                 and Busy on its first poll"
            );
        }
        let taken: Vec<(usize, usize)> = got
            .iter()
            .enumerate()
            .skip(1)
            .map(|(shard, answers)| {
                let (_, last) = answers.as_ref().unwrap();
                (shard, last.iter().filter(|answer| **answer != busy).count())
            })
            .collect();
        let total: usize = taken.iter().map(|(_, taken)| taken).sum();
        assert!(
            total <= QUEUE,
            "shard 0 was held still with a queue that holds {QUEUE} requests, and shards 1, 2 \
             and 3 called it {CALLS} times each, in turn: (caller, calls taken) = {taken:?}, \
             {total} in all. The first {QUEUE} fill the queue, and every call after them fails \
             at once with Busy(0), whoever makes it. A limit counted per caller (per Store \
             handle) lets each caller fill the queue anew; an unbounded queue, or a caller \
             that waits for room, takes any number; a queue made larger than config.queue \
             takes too many. The bound belongs to the queue itself"
        );
        let expected = vec![
            (vec![None; CALLS], vec![Ok(None); CALLS]),
            (vec![Some(busy.clone()); CALLS], vec![busy.clone(); CALLS]),
            (vec![Some(busy.clone()); CALLS], vec![busy.clone(); CALLS]),
        ];
        let got: Vec<_> = got.into_iter().skip(1).map(Option::unwrap).collect();
        assert_eq!(
            got, expected,
            "(first poll, answer) of each call by shards 1, 2 and 3: shard 1's four calls wait \
             in the queue (None: pending) and are served once shard 0 moves, the eight after \
             them fail at once with Busy(0)"
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
                if store.shard() != 0 {
                    until(done).await;
                    return None;
                }
                let _done = SetOnDrop(done);
                // Shard 0 holds shards 1 and 2 still inside their partitions...
                let hold = log.stalls.hold();
                let stall_keys = [1, 2].map(|shard| keys_on(shard, 3, "stall-", 1).remove(0));
                let mut stalls = pin!(join_all(stall_keys.iter().map(|k| store.put(k, "x"))));
                tokio::select! {
                    early = &mut stalls => panic!("the stalling puts returned early: {early:?}"),
                    () = log.stalls.until_held(2) => {}
                }
                // ...fills shard 2's queue with two puts (shard 1's has room)...
                let keys = keys_on(2, 3, "fill-", QUEUE);
                let mut fill = pin!(join_all(keys.iter().map(|key| store.put(key, "y"))));
                assert!(
                    futures::poll!(fill.as_mut()).is_pending(),
                    "shard 2 is held still"
                );
                // ...and counts the store: polled once, len() must have its answer.
                let len = store.len().now_or_never();
                hold.let_go();
                let (stalled, filled) = futures::join!(stalls, fill);
                let after = store.len().await;
                Some((len, stalled, filled, after))
            }),
        );
        shutdown.returned();
        let (len, stalled, filled, after) = got.expect("run returned an error")[0].clone().unwrap();
        match len {
            Some(Err(StoreError::Busy(2))) => {}
            None => panic!(
                "len() on shard 0 had not returned after one poll while shard 2's queue was \
                 full (and shard 1, held still, had room): it waited, for room in shard 2's \
                 queue, or for shard 1's answer with shard 2's Busy already known (or with \
                 shard 2 left out). A call to a full queue fails at once with Busy(2), and \
                 len() is a call to every shard: it offers to all of them first, and returns \
                 the first Busy before it awaits anything"
            ),
            Some(Ok(n)) => panic!(
                "len() answered Ok({n}) while shard 2's queue was full, a count that leaves \
                 shard 2 out. When a shard cannot be asked, there is no count: fail at once \
                 with Busy(2), as every call to a full queue does"
            ),
            Some(Err(other)) => panic!(
                "len() on shard 0 said {other:?} while shard 2's queue was full and every shard \
                 up: expected Busy(2). The error names the shard whose queue refused: mind the \
                 shard numbers above the caller's own"
            ),
        }
        assert_eq!(stalled, vec![Ok(None); 2]);
        assert_eq!(
            filled,
            vec![Ok(None); QUEUE],
            "the queued puts, once shard 2 moved"
        );
        assert_eq!(after, Ok(2 + QUEUE), "len() once shards 1 and 2 moved");
    });
}

#[test]
fn len_counts_its_own_shard_without_a_message() {
    store_test("the store did not finish", || {
        const QUEUE: usize = 2;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (filled_tx, filled_rx) = std_mpsc::channel::<()>();
        let (filled_tx, filled_rx) = (Mutex::new(filled_tx), Mutex::new(filled_rx));
        let (log, done, filled_tx, filled_rx) = (&log, &done, &filled_tx, &filled_rx);
        let config = Config {
            shards: 2,
            queue: QUEUE,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                if store.shard() == 1 {
                    // Shard 1 fills shard 0's queue while shard 0's thread is blocked (in its
                    // app, below), and tells it so.
                    let keys = keys_on(0, 2, "fill-", QUEUE);
                    let mut fill = pin!(join_all(keys.iter().map(|key| store.put(key, "y"))));
                    let pending = futures::poll!(fill.as_mut()).is_pending();
                    filled_tx.lock().unwrap().send(()).unwrap();
                    let filled = fill.await;
                    until(done).await;
                    return (Some((pending, filled)), None);
                }
                let _done = SetOnDrop(done);
                // Shard 0's own key, then a wait that blocks its thread: its loop cannot take
                // anything from its queue until shard 1 has filled it.
                let own = &keys_on(0, 2, "own-", 1)[0];
                store.put(own, "here").await.unwrap();
                filled_rx
                    .lock()
                    .unwrap()
                    .recv_timeout(LIMIT)
                    .expect("shard 1 fills shard 0's queue");
                let len = store.len().await;
                let empty = store.is_empty().await;
                (None, Some((len, empty)))
            }),
        );
        shutdown.returned();
        let got = got.expect("run returned an error");
        let (pending, filled) = got[1].0.clone().unwrap();
        let (len, empty) = got[0].1.unwrap();
        assert!(
            matches!(len, Ok(1..=3)) && empty == Ok(false),
            "len() on shard 0 said {len:?} and is_empty() {empty:?}, while shard 0's own queue \
             was full (two puts not served yet, one key in its partition): a shard counts its own \
             partition where it is, with no message to itself. A Len sent to its own queue is \
             refused (Busy(0)) when that queue is full, and waits behind everything queued \
             otherwise"
        );
        assert!(
            pending,
            "shard 0's thread was blocked: the puts wait in its queue"
        );
        assert_eq!(
            filled,
            vec![Ok(None); QUEUE],
            "the puts, once shard 0 moved"
        );
    });
}

// ---- Idle -------------------------------------------------------------------------------

/// How long the idle test watches shards that nobody calls. A shard that waits for its
/// queue sleeps all along, however long; one that naps, or wakes on a timer to look around,
/// wakes within this, and the test stops watching the moment it does.
const IDLE_STRETCH: Duration = Duration::from_millis(150);

/// Calls whose cost the idle test counts in sleeps of the shard's thread.
const HOPS: usize = 20;

/// Blocks until `thread` is asleep and stays asleep (two looks in a row), and returns how
/// often it has gone to sleep so far; `None` if it has ended or never settles.
fn settled(thread: OsThread) -> Option<u64> {
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut last = None;
    while Instant::now() < deadline {
        let (asleep, sleeps) = (thread.asleep()?, thread.sleeps()?);
        if asleep && last == Some(sleeps) {
            return Some(sleeps);
        }
        last = asleep.then_some(sleeps);
        thread::sleep(Duration::from_micros(50));
    }
    None
}

/// What the idle test saw of a shard's thread while nobody called it.
#[derive(Clone, Debug, Default)]
struct Watch {
    /// Wake-ups seen, and after how long the test stopped watching.
    woke: u64,
    ended: bool,
    watched: Duration,
}

// ANCHOR: idle
#[test]
fn an_idle_shard_sleeps_until_a_request_comes() {
    store_test("the store did not finish", || {
        const SHARDS: usize = 3;
        const CALLS: usize = 200;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let (ready, _) = watch::channel(0);
        let threads = Mutex::new([None; SHARDS]);
        let spun = AtomicBool::new(false);
        let (log, done, ready, threads, spun) = (&log, &done, &ready, &threads, &spun);
        let config = Config {
            shards: SHARDS,
            queue: 8,
        };
        let shutdown = Shutdown::watch(config.shards);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                let me = store.shard();
                threads.lock().unwrap()[me] = OsThread::current();
                match me {
                    1 => {
                        // Shard 1's app waits, counting how often its task polls it.
                        ready.send_modify(|ready| *ready += 1);
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
                        (Some(polls.get()), None)
                    }
                    2 => {
                        // Shard 2's app ends at once; its shard serves on.
                        ready.send_modify(|ready| *ready += 1);
                        (None, None)
                    }
                    _ => {
                        let _done = SetOnDrop(done);
                        let _ = ready.subscribe().wait_for(|&ready| ready == 2).await;
                        let [_, one, two] = *threads.lock().unwrap();
                        // Nobody calls shards 1 and 2 for a while: their threads sleep.
                        // (This blocks shard 0's thread, which nobody calls either.)
                        let mut watches = vec![Watch::default(); SHARDS];
                        if let (Some(one), Some(two)) = (one, two) {
                            let start = Instant::now();
                            let base = [(1, one, settled(one)), (2, two, settled(two))];
                            while start.elapsed() < IDLE_STRETCH {
                                thread::sleep(Duration::from_millis(1));
                                let mut seen = false;
                                for &(shard, thread, base) in &base {
                                    let watch = &mut watches[shard];
                                    watch.watched = start.elapsed();
                                    match (thread.sleeps(), base) {
                                        (Some(now), Some(base)) => watch.woke = now - base,
                                        _ => watch.ended = true,
                                    }
                                    seen |= watch.ended || watch.woke > 0;
                                }
                                if seen {
                                    break;
                                }
                            }
                        }
                        // Then shard 0 calls shard 2, whose app ended long ago, again and
                        // again; the first calls one at a time, each while shard 2 sleeps,
                        // counting how often its thread goes to sleep meanwhile.
                        let key = &keys_on(2, SHARDS, "elsewhere-", 1)[0];
                        let first = store.put(key, "first").await;
                        let mut hops = None;
                        if let Some(two) = two.filter(|_| first.is_ok()) {
                            let mut slept = 0;
                            for call in 0..HOPS {
                                let before = settled(two);
                                let _ = store.put(key, &call.to_string()).await;
                                if let (Some(before), Some(after)) = (before, settled(two)) {
                                    slept += after - before;
                                }
                            }
                            hops = Some(slept);
                        }
                        for call in 0..CALLS {
                            let _ = store.put(key, &call.to_string()).await;
                            if spun.load(SeqCst) {
                                break;
                            }
                        }
                        (None, Some((watches, first, hops)))
                    }
                }
            }),
        );
        shutdown.returned();
        let got = got.expect("run returned an error");
        let polls = got[1].0.unwrap();
        assert!(
            polls <= IDLE_POLLS,
            "shard 1 had nothing to do, yet its task polled its app more than {IDLE_POLLS} \
             times while shard 0 called shard 2: something wakes shard 1 again and again. \
             A shard's loop that polls its queue (try_recv in a loop, with yield_now or a \
             short sleep between) keeps its thread busy for nothing, and shards that share \
             one task wake each other; await recv() on a thread of the shard's own, which \
             wakes the shard only when a request comes or the queue closes"
        );
        let (watches, first, hops) = got[0].1.clone().unwrap();
        for (shard, watch) in watches.iter().enumerate().skip(1) {
            let app = ["", "its app waiting", "its app ended"][shard];
            assert!(
                !watch.ended,
                "shard {shard}'s thread ended while the other apps could still call it ({app}, \
                 {} ms after the test began to watch): a shard serves until every handle on \
                 the store is gone (recv() says None), not until its queue has been quiet for \
                 a while or its own app has ended",
                watch.watched.as_millis()
            );
            assert_eq!(
                watch.woke,
                0,
                "nobody called shard {shard} ({app}), yet its thread woke {} in {} ms: \
                 its loop naps or ticks (a short sleep between try_recv, a timeout on recv() \
                 that goes round again, a timer to look around). An idle shard's thread \
                 sleeps until a request comes or its queue closes: await recv(), with no \
                 timeout",
                match watch.woke {
                    1 => "once".to_owned(),
                    n => format!("{n} times"),
                },
                watch.watched.as_millis()
            );
        }
        assert_eq!(
            first,
            Ok(None),
            "a call to shard 2, made {} ms after its app had ended while shard 0's app still \
             held its handle, was not served: a shard serves until every handle is gone",
            IDLE_STRETCH.as_millis()
        );
        if let Some(slept) = hops {
            assert!(
                slept as usize * 2 <= HOPS * 3,
                "shard 2's thread went to sleep {slept} times while it served {HOPS} calls, one \
                 at a time, each while it slept: a shard that serves a request as it comes \
                 sleeps once per call (it wakes for the request, serves it, sleeps again). \
                 This one sleeps again before it serves: a linger to gather a batch, a sleep \
                 or a timer after recv(). Serve what recv() hands over at once; whatever else \
                 is queued already, take with try_recv, without waiting for more"
            );
        }
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
        let went_on = Mutex::new(None);
        let (done, _) = watch::channel(false);
        let (log, report_to, went_on, done) = (&log, &report, &went_on, &done);
        let config = Config {
            shards: 3,
            queue: 16,
        };
        let shutdown = Shutdown::watch(config.shards);
        let result = run(
            &config,
            |shard| Probe::new(shard, log),
            shutdown.apps(move |store: Store<Probe>| async move {
                match store.shard() {
                    1 => {
                        until(done).await;
                        return;
                    }
                    2 => {
                        // Shard 2's app waits; its shard panics meanwhile. Whatever it does
                        // after that, it does with the partition the panic left half changed.
                        until(done).await;
                        let own = &keys_on(2, 3, "own-", 1)[0];
                        *went_on.lock().unwrap() = Some(store.put(own, "after").await);
                        return;
                    }
                    _ => {}
                }
                let _done = SetOnDrop(done);
                let hold = log.stalls.hold();
                let stall_key = &keys_on(2, 3, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalls.until_held(1) => {}
                }
                // While shard 2 is stuck, shard 0 queues behind it: a put that will panic,
                // then a count of the whole store and a get that wait behind the panic.
                let on_2 = keys_on(2, 3, "doomed-", 2);
                let on_1 = &keys_on(1, 3, "fine-", 1)[0];
                let released = async {
                    tokio::task::yield_now().await;
                    hold.let_go();
                };
                let (stalled, panicked, len, queued, ()) = futures::join!(
                    stall,
                    store.put(&on_2[0], "panic"),
                    store.len(),
                    store.get(&on_2[1]),
                    released,
                );
                // After the panic: shard 2 stays down, the others serve on.
                let later = store.get(&on_2[1]).await;
                let elsewhere = store.put(on_1, "ok").await;
                *report_to.lock().unwrap() =
                    Some((stalled, panicked, len, queued, later, elsewhere));
            }),
        );
        shutdown.returned();
        let (stalled, panicked, len, queued, later, elsewhere) = report
            .lock()
            .unwrap()
            .take()
            .expect("shard 0's app did not finish: did a caller panic when its shard did?");
        use StoreError::Down;
        assert_eq!(stalled, Ok(None), "the put served before the panic");
        assert_eq!(
            panicked,
            Err(Down(2)),
            "the call whose request panicked shard 2"
        );
        match len {
            Err(Down(2)) => {}
            Err(Down(other)) => panic!(
                "len() on shard 0, queued behind the panic of shard 2, said Down({other}): the \
                 error names the shard that stopped, shard 2 (mind the shard numbers above the \
                 caller's own)"
            ),
            Ok(n) => panic!(
                "len() on shard 0, queued behind the panic of shard 2, answered Ok({n}): either \
                 shard 2 went on serving after its panic (caught), or its count was left out. \
                 A shard that panics stops, and what waits in its queue fails with Down(2)"
            ),
            other => panic!(
                "len() on shard 0, queued behind the panic of shard 2, said {other:?}: expected \
                 Down(2)"
            ),
        }
        assert_eq!(queued, Err(Down(2)), "a get queued behind the panic");
        assert_eq!(later, Err(Down(2)), "a get sent after the panic");
        assert_eq!(elsewhere, Ok(None), "a put to shard 1, still serving");
        if let Some(Ok(answer)) = went_on.lock().unwrap().take() {
            panic!(
                "shard 2 panicked, yet its app went on and wrote its own key on the partition that \
                 the panic left half changed (put answered Ok({answer:?})): the panic was \
                 caught, and the shard's thread lived on. A shard that panics stops, its app \
                 with it: let the panic unwind the shard's thread (no catch_unwind), and let \
                 run report it"
            );
        }
        assert_eq!(
            result.err(),
            Some(StoreError::Panicked(2)),
            "run reports the shard that panicked, as an error (not a panic of its own, \
             and not Ok: a lost panic is a lost error)"
        );
    });
}
// ANCHOR_END: panic

#[test]
fn run_reports_the_lowest_numbered_shard_that_panicked() {
    store_test("a call to a shard that panicked never returned", || {
        const SHARDS: usize = 8;
        const ORDER: [usize; 7] = [5, 3, 7, 1, 6, 2, 4];
        // A store that picks a panicked shard at random (the first one a HashMap yields,
        // say) passes a round one time in seven: it fails one of these.
        const ROUNDS: usize = 6;
        for round in 1..=ROUNDS {
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
                    // Shard 0 makes every other shard panic, in the order above: each
                    // answer (an error) comes only once its shard has panicked.
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
            let said = result.err();
            assert_eq!(
                said,
                Some(StoreError::Panicked(1)),
                "shards 5, 3, 7, 1, 6, 2 and 4 panicked, in that order, and run said {said:?} \
                 (round {round} of {ROUNDS} of the same test). run reports the lowest-numbered \
                 of them, shard 1, every time, whatever the order they panicked in and the \
                 order they are met in: join every thread, then report the lowest shard that \
                 panicked (not the first or the last one seen, nor the first a HashMap \
                 yields), so that the same failure always gives the same error"
            );
        }
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
        // The moment run returns, every partition has been dropped, each on its own thread:
        // every thread has ended.
        let built: HashSet<_> = log.built.lock().unwrap().iter().copied().collect();
        let dropped: HashSet<_> = log.dropped.lock().unwrap().iter().copied().collect();
        assert_eq!(
            dropped, built,
            "when run returns, every shard's partition is dropped, on its own thread: nothing of \
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
