//! Tests for lab 16, written once: labs/16-local-runtime and solutions/16-local-runtime
//! both run this file. Every test runs on a `LocalRuntime` (one thread) in virtual time,
//! under a wall-clock watchdog (`lab_support::paused_local`). The cache is an
//! `Rc<RefCell<Cache>>` that the test owns; the backend is a fake whose futures keep an
//! `Rc` across `.await`; the clients are tasks started with `spawn_local`. Nothing here
//! is `Send`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use lab_support::{Gauge, paused_local};
use local_runtime::{Backend, Cache, Request, serve};
use tokio::sync::oneshot::error::TryRecvError;
use tokio::sync::{mpsc, oneshot};
use tokio::task::spawn_local;
use tokio::time::{Instant, sleep, sleep_until, timeout};

const MS: Duration = Duration::from_millis(1);
/// How long the fake backend takes to load a value.
const LOAD: Duration = Duration::from_millis(10);
/// How long a client waits for its value, and `serve` for its end, in virtual time:
/// far more than any correct run needs. Past it, the test fails instead of hanging.
const PATIENCE: Duration = Duration::from_secs(1);

/// What the test watches, shared with the fake backend.
#[derive(Default)]
struct Probe {
    /// Loads in flight now, at most, and in all. A load leaves when it ends or is dropped.
    loads: Gauge,
    /// Loads that ran to the end.
    finished: Cell<usize>,
    /// Set when the fake backend found the cache borrowed while it was awaited.
    held_borrow: Cell<bool>,
    /// The task each load ran in (`None`: in no task, inside `serve`'s own future).
    tasks: RefCell<Vec<Option<tokio::task::Id>>>,
}

/// What goes wrong when a `RefCell` borrow lives across an `.await`, and the fix.
const HELD_BORROW: &str = "the cache's RefCell is still borrowed while the backend is \
    awaited: a borrow is alive across an .await, so any other task that touches the cache \
    now panics with \"RefCell already borrowed\". Take what you need from the cache in a \
    block or a plain fn, let the borrow end, then .await";

impl Probe {
    /// Fails the test first of all if the fake backend ever found the cache borrowed.
    fn assert_no_held_borrow(&self) {
        assert!(!self.held_borrow.get(), "{HELD_BORROW}");
    }
}

// ANCHOR: fake
/// A fake backend: answers `"value {key}"` after 10 ms. It keeps a handle on the test's
/// cache only to check that nobody holds it borrowed while a load is awaited.
struct Fake {
    probe: Rc<Probe>,
    cache: Rc<RefCell<Cache>>,
}

impl Backend for Fake {
    async fn load(&self, key: u32) -> String {
        if self.cache.try_borrow_mut().is_err() {
            self.probe.held_borrow.set(true);
            panic!("key {key}: {HELD_BORROW}");
        }
        let probe = Rc::clone(&self.probe); // an `Rc` alive across the `.await`
        probe.tasks.borrow_mut().push(tokio::task::try_id());
        let _loading = probe.loads.enter();
        sleep(LOAD).await;
        probe.finished.set(probe.finished.get() + 1);
        format!("value {key}")
    }
}
// ANCHOR_END: fake

fn setup() -> (Rc<Probe>, Rc<RefCell<Cache>>, Fake) {
    let probe = Rc::new(Probe::default());
    let cache = Rc::new(RefCell::new(Cache::default()));
    let backend = Fake {
        probe: Rc::clone(&probe),
        cache: Rc::clone(&cache),
    };
    (probe, cache, backend)
}

/// The one call into your code: the backend, the test's cache, and the requests.
async fn serve_with(backend: Fake, cache: &Rc<RefCell<Cache>>, requests: mpsc::Receiver<Request>) {
    serve(backend, Rc::clone(cache), requests).await;
}

/// What one client got: its value (or why it has none), and when, in virtual ms.
#[derive(Debug, PartialEq)]
struct Answer {
    key: u32,
    value: Result<String, &'static str>,
    at: u64,
}

fn answer(key: u32, at: u64) -> Answer {
    Answer {
        key,
        value: Ok(format!("value {key}")),
        at,
    }
}

/// What a run of `serve` left behind.
struct Run {
    answers: Vec<Answer>,
    /// When `serve` returned (virtual ms), if it did within `PATIENCE` of the last ask.
    returned: Option<u64>,
    probe: Rc<Probe>,
    cache: Rc<RefCell<Cache>>,
}

// ANCHOR: run
/// Runs `serve` with the fake backend and a fresh cache, and one client task per
/// `(at, key)`: at `at` ms it sends a request for `key`, then waits for the value. The
/// channel closes once every client has sent its request.
async fn run(asks: &[(u64, u32)]) -> Run {
    let (probe, cache, backend) = setup();
    let (sender, requests) = mpsc::channel(asks.len());
    let start = Instant::now();
    let clients: Vec<_> = asks
        .iter()
        .map(|&(at, key)| {
            let sender = sender.clone();
            spawn_local(async move {
                sleep_until(start + Duration::from_millis(at)).await;
                let (reply, value) = oneshot::channel();
                let sent = sender.send(Request { key, reply }).await;
                drop(sender);
                let value = match (sent, timeout(PATIENCE, value).await) {
                    (Err(_), _) => Err("serve had stopped taking requests"),
                    (Ok(()), Err(_)) => Err("no answer after 1 s"),
                    (Ok(()), Ok(Err(_))) => Err("the request was dropped unanswered"),
                    (Ok(()), Ok(Ok(value))) => Ok(value),
                };
                let at = start.elapsed().as_millis() as u64;
                Answer { key, value, at }
            })
        })
        .collect();
    drop(sender);

    let last = asks.iter().map(|&(at, _)| at).max().unwrap_or(0);
    let served = async {
        let deadline = start + Duration::from_millis(last) + PATIENCE;
        let serving = serve_with(backend, &cache, requests);
        let done = tokio::time::timeout_at(deadline, serving).await;
        done.ok().map(|()| start.elapsed().as_millis() as u64)
    };
    let answered = async {
        let mut answers = Vec::new();
        for client in clients {
            answers.push(client.await.expect("a client task panicked"));
        }
        answers
    };
    let (returned, answers) = tokio::join!(served, answered);
    probe.assert_no_held_borrow();
    Run {
        answers,
        returned,
        probe,
        cache,
    }
}
// ANCHOR_END: run

/// The cache's counters and entries, as a tuple that is easy to compare.
fn stats(cache: &RefCell<Cache>) -> (u64, u64, HashMap<u32, String>) {
    let cache = cache.borrow();
    (cache.hits, cache.misses, cache.entries.clone())
}

fn entries(keys: &[u32]) -> HashMap<u32, String> {
    keys.iter().map(|&k| (k, format!("value {k}"))).collect()
}

#[test]
fn a_miss_loads_then_a_hit_comes_from_the_cache() {
    paused_local(|| async {
        let run = run(&[(0, 1), (20, 1)]).await;

        assert_eq!(
            run.answers,
            [answer(1, 10), answer(1, 20)],
            "the first request for key 1 waits for the backend (10 ms); the second, at \
             20 ms, is answered from the cache at once"
        );
        assert_eq!(
            run.probe.loads.total(),
            1,
            "key 1 should be loaded once, then served from the cache"
        );
        assert_eq!(
            stats(&run.cache),
            (1, 1, entries(&[1])),
            "(hits, misses, entries) in the test's cache: serve must use the cache it is given"
        );
        assert_eq!(run.returned, Some(20), "serve should return at 20 ms");
    });
}

// ANCHOR: concurrently
#[test]
fn requests_are_served_concurrently() {
    paused_local(|| async {
        let asks: Vec<(u64, u32)> = (1..=100).map(|key| (0, key)).collect();
        let run = run(&asks).await;

        let late: Vec<&Answer> = (run.answers.iter())
            .filter(|got| **got != answer(got.key, 10))
            .collect();
        assert!(
            late.is_empty(),
            "100 requests for 100 different keys, all at 0 ms, should all be answered at \
             10 ms: one load each, all at the same time. {} were not; the first: {:?}",
            late.len(),
            late[0]
        );
        assert_eq!(
            run.probe.loads.peak(),
            100,
            "all 100 loads should be in flight at once"
        );
        assert_eq!(stats(&run.cache).1, 100, "100 misses");
        assert_eq!(run.returned, Some(10), "serve should return at 10 ms");
    });
}
// ANCHOR_END: concurrently

#[test]
fn an_answer_does_not_wait_for_later_requests() {
    paused_local(|| async {
        let run = run(&[(0, 1), (50, 2)]).await;

        assert_eq!(
            run.answers,
            [answer(1, 10), answer(2, 60)],
            "a request is served as soon as it arrives: key 1 (asked at 0 ms) at 10 ms, \
             without waiting for key 2 (asked at 50 ms) or for the channel to close"
        );
    });
}

#[test]
fn every_request_is_a_task_of_its_own() {
    paused_local(|| async {
        let run = run(&[(0, 1), (0, 2), (0, 3), (5, 4)]).await;

        let tasks = run.probe.tasks.take();
        let mut distinct: Vec<tokio::task::Id> = tasks.iter().flatten().copied().collect();
        distinct.sort();
        distinct.dedup();
        assert_eq!(
            (tasks.len(), distinct.len()),
            (4, 4),
            "(loads, tasks they ran in): the 4 loads ran in {} distinct task(s) ({} of \
             them in none at all, inside serve's own future). This lab is about tasks on \
             a local runtime: spawn each request with spawn_local (in a JoinSet), so that \
             the runtime schedules it on its own. (Joining futures inside one future is \
             Part III's way, and a good one; it is not this lab's.)",
            distinct.len(),
            tasks.iter().filter(|t| t.is_none()).count()
        );
    });
}

/// A backend whose load of key 13 panics, as a bug in a handler would.
struct Panicky;

impl Backend for Panicky {
    async fn load(&self, key: u32) -> String {
        sleep(LOAD).await;
        assert_ne!(key, 13, "the backend's bug, on purpose");
        format!("value {key}")
    }
}

#[test]
fn a_panic_in_a_request_reaches_whoever_awaits_serve() {
    paused_local(|| async {
        let cache = Rc::new(RefCell::new(Cache::default()));
        let (sender, requests) = mpsc::channel(3);
        for key in [1, 13, 2] {
            let (reply, _value) = oneshot::channel();
            sender.try_send(Request { key, reply }).unwrap();
        }
        drop(sender);

        // serve runs in a task of its own here, so that its panic can be looked at.
        let serving = spawn_local(serve(Panicky, Rc::clone(&cache), requests));
        let ended = timeout(PATIENCE, serving)
            .await
            .expect("serve did not return after 1 s");

        let error = ended.expect_err(
            "the load of key 13 panicked, and serve returned as if all had gone well: \
             a request's panic must reach whoever awaits serve, as the starter's \
             `.expect(\"a request panicked\")` made it (JoinSet::join_all re-raises it; a \
             loop over join_next must not drop the JoinError)",
        );
        assert!(error.is_panic(), "serve should have panicked, not {error}");
    });
}

// ANCHOR: interleaved
#[test]
fn no_borrow_of_the_cache_is_held_across_an_await() {
    paused_local(|| async {
        // Loads overlap: key 1 from 0 to 10 ms, key 2 and key 1 again from 5 to 15 ms
        // (a miss, since key 1 is not cached yet), key 3 from 16 to 26 ms. At 16 ms,
        // keys 1 and 2 are hits, while the cache is shared by every task in flight.
        let asks = [(0, 1), (5, 2), (5, 1), (16, 1), (16, 2), (16, 3)];
        let run = run(&asks).await;

        let want = [
            answer(1, 10),
            answer(2, 15),
            answer(1, 15),
            answer(1, 16),
            answer(2, 16),
            answer(3, 26),
        ];
        assert_eq!(run.answers, want, "answers as (key, value, virtual ms)");
        assert_eq!(run.probe.loads.peak(), 3, "three loads at once, at 5 ms");
        assert_eq!(
            stats(&run.cache),
            (2, 4, entries(&[1, 2, 3])),
            "(hits, misses, entries): 4 misses (key 1 twice), 2 hits"
        );
        assert_eq!(run.returned, Some(26), "serve should return at 26 ms");
    });
}
// ANCHOR_END: interleaved

// ANCHOR: no_work_lost
#[test]
fn serve_returns_only_when_every_request_is_answered() {
    paused_local(|| async {
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(5);
        let mut values = Vec::new();
        for key in 1..=5 {
            let (reply, value) = oneshot::channel();
            sender.try_send(Request { key, reply }).unwrap();
            values.push(value);
        }
        drop(sender); // closed: five requests to serve, then no more

        let start = Instant::now();
        let served = timeout(PATIENCE, serve_with(backend, &cache, requests)).await;

        probe.assert_no_held_borrow();
        assert!(served.is_ok(), "serve did not return after 1 s");
        assert_eq!(
            probe.finished.get(),
            5,
            "serve returned after {:?} with {} of 5 loads finished: a task that nobody \
             awaits is detached, and whatever it had left to do is lost when the runtime \
             stops. Wait for every task you spawned before returning",
            start.elapsed(),
            probe.finished.get()
        );
        assert_eq!(start.elapsed(), LOAD, "serve should return at 10 ms");
        for (key, mut value) in (1..).zip(values) {
            assert_eq!(
                value.try_recv(),
                Ok(format!("value {key}")),
                "the answer for key {key} should be there when serve returns"
            );
        }
    });
}
// ANCHOR_END: no_work_lost

// ANCHOR: dropped
#[test]
fn dropping_serve_stops_its_requests() {
    paused_local(|| async {
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(3);
        let mut values = Vec::new();
        for key in 1..=3 {
            let (reply, value) = oneshot::channel();
            sender.try_send(Request { key, reply }).unwrap();
            values.push(value);
        }
        // `sender` stays open, so serve would wait for more requests. Stop it at 5 ms,
        // as a server stops at shutdown: by dropping its future.
        let served = timeout(5 * MS, serve_with(backend, &cache, requests)).await;
        probe.assert_no_held_borrow();
        assert!(served.is_err(), "serve returned while its channel was open");
        assert_eq!(
            probe.loads.total(),
            3,
            "by 5 ms, all three loads should have started (they run concurrently)"
        );

        sleep(100 * MS).await; // time for anything that escaped to run
        assert_eq!(
            probe.finished.get(),
            0,
            "{} loads ran to the end after serve was dropped at 5 ms. Dropping a \
             JoinHandle does not stop its task: keep the tasks in a tokio::task::JoinSet, \
             which aborts them when it is dropped",
            probe.finished.get()
        );
        assert_eq!(probe.loads.now(), 0, "no load may still be in flight");
        for mut value in values {
            assert_eq!(
                value.try_recv(),
                Err(TryRecvError::Closed),
                "a request stopped at shutdown is dropped unanswered"
            );
        }
        drop(sender);
    });
}
// ANCHOR_END: dropped
