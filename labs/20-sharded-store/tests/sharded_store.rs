//! Tests for lab 20, written once: labs/20-sharded-store and solutions/20-sharded-store
//! both run this file.
//!
//! Every test hands `run` a slice of its own, a `Probe`: a map that records, for every
//! operation, which shard and which thread served it, and that holds an `Rc` (so it is
//! not `Send`) and a reference to the test's log (so it is not `'static`). The apps are
//! the test's clients, one per shard, running on the shards' threads. Each test runs
//! under a wall-clock watchdog, so a wrong answer that hangs fails instead. On the
//! test's side, locks are fine: the lesson applies to the store, not to its probes.
#![allow(
    clippy::disallowed_types,
    reason = "the probes log from every shard's thread: the test's locks, not the store's"
)]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::pin::pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, mpsc as std_mpsc};
use std::thread::{self, ThreadId};
use std::time::Duration;

use futures::FutureExt;
use futures::future::join_all;
use sharded_store::{Config, Slice, Store, StoreError, run, shard_for};
use tokio::sync::{Notify, watch};

/// Each test's wall-clock limit. Correct runs take milliseconds even on a busy
/// machine; the limit only turns a hang into a failure.
const LIMIT: Duration = Duration::from_secs(10);

fn watchdog<T: Send + 'static>(why: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let why = format!(
        "{why}. Common causes: a `Store` handle (a sender) kept alive where no app owns it, \
         so the queues never close and the shards never stop; a shard that waits for its \
         own app before serving others; a gather that waits for an answer nobody will send"
    );
    lab_support::within(LIMIT, &why, f)
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
    /// A put on a key that starts with "stall" blocks its shard's thread: it tells
    /// `stalled`, then waits until the test sends on `release` (at most 30 s).
    stalled: Notify,
    release: Mutex<Option<std_mpsc::Receiver<()>>>,
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
            self.log.stalled.notify_one();
            let release = self.log.release.lock().unwrap().take();
            let _ = release.map(|r| r.recv_timeout(Duration::from_secs(30)));
        }
        let old = self.map.insert(key.clone(), value.clone());
        self.record(&key, Some(&value));
        old
    }

    fn len(&self) -> usize {
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

/// The first `count` keys `{prefix}{i}` that `shard_for` gives to `shard`.
fn keys_on(shard: usize, shards: usize, prefix: &str, count: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("{prefix}{i}"))
        .filter(|key| shard_for(key, shards) == shard)
        .take(count)
        .collect()
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
    watchdog("shard_for did not return", || {
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
    watchdog("shard_for did not return", || {
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
    watchdog("the store did not finish", || {
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
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            move |store: Store<Probe>| async move {
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
            },
        );
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
    watchdog("the store did not finish", || {
        const SHARDS: usize = 3;
        let log = Log::default();
        let (done, _) = watch::channel(false);
        let finished = AtomicUsize::new(0);
        let (log, done, finished) = (&log, &done, &finished);
        let config = Config {
            shards: SHARDS,
            queue: 64,
        };
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            move |store: Store<Probe>| async move {
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
            },
        );
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
    watchdog("the store did not finish", || {
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
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            move |store: Store<Probe>| async move {
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
            },
        );
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

// ---- Scatter/gather ---------------------------------------------------------------------

// ANCHOR: len
#[test]
fn len_counts_every_shard_while_writes_go_on() {
    watchdog("the store did not finish", || {
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
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            move |store: Store<Probe>| async move {
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
            },
        );
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

// ---- Backpressure -------------------------------------------------------------------------

// ANCHOR: busy
#[test]
fn a_full_queue_refuses_calls_at_once() {
    watchdog("the store did not finish", || {
        const QUEUE: usize = 4;
        const CALLS: usize = QUEUE + 6;
        let (release, stalled) = std_mpsc::channel();
        let log = Log {
            release: Mutex::new(Some(stalled)),
            ..Log::default()
        };
        let (done, _) = watch::channel(false);
        let (log, release, done) = (&log, &release, &done);
        let config = Config {
            shards: 2,
            queue: QUEUE,
        };
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            move |store: Store<Probe>| async move {
                if store.shard() == 0 {
                    until(done).await;
                    return None;
                }
                let _done = SetOnDrop(done);
                // Shard 1 blocks shard 0's thread inside its slice...
                let stall_key = &keys_on(0, 2, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalled.notified() => {}
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
                    release.send(()).unwrap();
                    refused
                };
                let ((_, refused), stalled) =
                    tokio::join!(futures::future::join(calls, watch), stall);
                Some((refused, answers.into_inner(), stalled))
            },
        );
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

// ---- Failure --------------------------------------------------------------------------

// ANCHOR: panic
#[test]
fn a_shard_that_panics_fails_its_callers_and_run_says_so() {
    watchdog("a call to a shard that panicked never returned", || {
        let (release, stalled) = std_mpsc::channel();
        let log = Log {
            release: Mutex::new(Some(stalled)),
            ..Log::default()
        };
        let report = Mutex::new(None);
        let (done, _) = watch::channel(false);
        let (log, release, report_to, done) = (&log, &release, &report, &done);
        let config = Config {
            shards: 3,
            queue: 16,
        };
        let result = run(
            &config,
            |shard| Probe::new(shard, log),
            move |store: Store<Probe>| async move {
                if store.shard() != 1 {
                    until(done).await;
                    return;
                }
                let _done = SetOnDrop(done);
                let stall_key = &keys_on(0, 3, "stall-", 1)[0];
                let mut stall = pin!(store.put(stall_key, "x"));
                tokio::select! {
                    early = &mut stall => panic!("the stalling put returned early: {early:?}"),
                    () = log.stalled.notified() => {}
                }
                // While shard 0 is stuck, queue behind it: a put that will panic, then a
                // count of the whole store and a get that wait behind the panic.
                let on_0 = keys_on(0, 3, "doomed-", 2);
                let on_2 = &keys_on(2, 3, "fine-", 1)[0];
                let released = async {
                    tokio::task::yield_now().await;
                    release.send(()).unwrap();
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
            },
        );
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

// ---- Shutdown -------------------------------------------------------------------------

// ANCHOR: shutdown
#[test]
fn run_drains_every_queue_and_joins_every_thread() {
    watchdog("run did not return after every app had finished", || {
        const SHARDS: usize = 4;
        let log = Log::default();
        let config = Config {
            shards: SHARDS,
            queue: 64,
        };
        let sent = AtomicUsize::new(0);
        let (log, sent_to) = (&log, &sent);
        let got = run(
            &config,
            |shard| Probe::new(shard, log),
            move |store: Store<Probe>| async move {
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
            },
        );
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
            "shard 0's app ended first, but its shard answered all {} calls sent to it \
             afterwards: a shard serves until every handle on the store is gone",
            sent.load(SeqCst)
        );
        let ops = log.ops.lock().unwrap();
        assert_eq!(ops.len(), 600);
        assert!(ops.iter().all(|op| op.shard == 0));
    });
}
// ANCHOR_END: shutdown
