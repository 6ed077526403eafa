//! Tests for lab 16, written once: labs/16-local-runtime and solutions/16-local-runtime
//! both run this file. Every test runs on a `LocalRuntime` (one thread) in virtual time,
//! under a wall-clock watchdog. The cache is an `Rc<RefCell<Cache>>` that the test owns;
//! the backend is a fake whose futures keep an `Rc` across `.await`; the clients are
//! tasks started with `spawn_local`. Nothing here is `Send`. `serve` runs under a poll
//! budget, so a loop that polls instead of waiting fails at once instead of hanging; the
//! runtime counts how often its thread wakes, so that a task that polls on a timer while
//! there is nothing to do is seen too, wherever it runs.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::poll_fn;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use lab_support::byte_alloc::{ByteCountingAllocator, allocated_bytes, live_blocks, live_bytes};
use lab_support::{Gauge, PollBudget, within};
use local_runtime::{Backend, Cache, Request, serve};
use tokio::sync::oneshot::error::TryRecvError;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{JoinError, JoinHandle, spawn_local};
use tokio::time::{Instant, sleep, sleep_until, timeout};

// Counts blocks and bytes per thread: the tests that serve thousands of requests measure
// what stays allocated, and what a hit costs.
#[global_allocator]
static ALLOCATOR: ByteCountingAllocator = ByteCountingAllocator;

const MS: Duration = Duration::from_millis(1);
/// How long the fake backend takes to load a value.
const LOAD: Duration = Duration::from_millis(10);
/// How long a client waits for its value, and `serve` for its end, in virtual time:
/// far more than any correct run needs. Past it, the test fails instead of hanging.
const PATIENCE: Duration = Duration::from_secs(1);
/// The wall-clock limit of one test: a correct run takes milliseconds.
const WALL_LIMIT: Duration = Duration::from_secs(10);

thread_local! {
    /// How often the runtime's thread has woken up to run tasks (`on_thread_unpark`).
    static WAKE_UPS: Cell<usize> = const { Cell::new(0) };
}

/// How often the runtime's thread has woken up so far. With time paused, a runtime with
/// nothing to do jumps to its next timer: every timer that fires while all is quiet is
/// one wake-up, whichever task set it.
fn wake_ups() -> usize {
    WAKE_UPS.with(Cell::get)
}

/// Runs the test body on a fresh thread, on a `LocalRuntime` with paused (virtual) time,
/// under a wall-clock watchdog (`lab_support::within`).
fn local_test<Fut: Future<Output = ()>>(make: impl FnOnce() -> Fut + Send + 'static) {
    within(
        WALL_LIMIT,
        "the test's only thread is stuck, and virtual time stopped moving: some loop \
         never waits. In a select! loop, the branch `done = tasks.join_next()` takes the \
         None that an empty JoinSet returns at once, again and again: write \
         `Some(done) = tasks.join_next()`, so that select! skips the branch while the set \
         is empty. A loop over try_recv or try_join_next that never awaits spins the same way",
        move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .on_thread_unpark(|| WAKE_UPS.with(|n| n.set(n.get() + 1)))
                .build_local(tokio::runtime::LocalOptions::default())
                .expect("build a paused local runtime")
                .block_on(make())
        },
    )
}

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
    /// The key whose load panics at its end, as a bug in a handler would.
    panics_on: Cell<Option<u32>>,
    /// When that load panicked.
    panicked_at: Cell<Option<Instant>>,
    /// Set when the fake backend is dropped.
    backend_dropped: Cell<bool>,
}

/// What goes wrong when a `RefCell` borrow lives across an `.await`, and the fix.
const HELD_BORROW: &str = "the cache's RefCell is still borrowed while the backend is \
    awaited: a borrow is alive across an .await, so any other task that touches the cache \
    now panics with \"RefCell already borrowed\". Take what you need from the cache in a \
    block or a plain fn, let the borrow end, then .await";

/// What the fake backend panics with, on purpose, as a bug in a handler would: a value
/// of the test's own type, so that the test can tell the load's own panic from a new
/// one made up from it.
#[derive(Debug, PartialEq)]
struct Bug {
    key: u32,
}

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
        if probe.panics_on.get() == Some(key) {
            probe.panicked_at.set(Some(Instant::now()));
            eprintln!("the fake backend panics on purpose, with a Bug {{ key: {key} }}:");
            std::panic::panic_any(Bug { key });
        }
        probe.finished.set(probe.finished.get() + 1);
        format!("value {key}")
    }
}

/// The test sees when `serve` lets go of the backend.
impl Drop for Fake {
    fn drop(&mut self) {
        self.probe.backend_dropped.set(true);
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

/// The one call into your code: the backend, a handle on the test's cache, and the
/// requests; polled at most `budget` times (far more than a correct `serve` needs for
/// the requests the test sends).
fn serving(
    backend: Fake,
    cache: &Rc<RefCell<Cache>>,
    requests: mpsc::Receiver<Request>,
    budget: usize,
) -> impl Future<Output = ()> + 'static {
    let serving: Pin<Box<dyn Future<Output = ()>>> =
        Box::pin(serve(backend, Rc::clone(cache), requests));
    let watched = PollBudget::new(budget, "serve", serving);
    async move {
        watched.await;
    }
}

/// `serve`, started as a local task of its own, so that the test can see it panic.
fn spawn_serve(
    backend: Fake,
    cache: &Rc<RefCell<Cache>>,
    requests: mpsc::Receiver<Request>,
    budget: usize,
) -> JoinHandle<()> {
    spawn_local(serving(backend, cache, requests, budget))
}

/// Polls a correct `serve` may need for `requests` requests: about two each.
fn budget(requests: usize) -> usize {
    8 * requests + 32
}

/// What a panic said, to show it.
fn panic_message(error: JoinError) -> String {
    if !error.is_panic() {
        return format!("{error}");
    }
    describe(&*error.into_panic())
}

/// What a panic's payload says, to show it.
fn describe(payload: &(dyn std::any::Any + Send)) -> String {
    (payload.downcast_ref::<String>().cloned())
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .or_else(|| payload.downcast_ref::<Bug>().map(|bug| format!("{bug:?}")))
        .unwrap_or_else(|| "(a panic without a message)".into())
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

/// Runs `serve` with the fake backend and a fresh cache; see [`run_on`].
async fn run(asks: &[(u64, u32)]) -> Run {
    run_on(setup(), asks).await
}

// ANCHOR: run
/// Runs `serve` with the fake backend and the cache in `parts`, and one client task per
/// `(at, key)`: at `at` ms it sends a request for `key`, then waits for the value. The
/// channel closes once every client has sent its request.
async fn run_on(parts: (Rc<Probe>, Rc<RefCell<Cache>>, Fake), asks: &[(u64, u32)]) -> Run {
    let (probe, cache, backend) = parts;
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
    let mut serving = spawn_serve(backend, &cache, requests, budget(asks.len()));
    let served = async {
        let deadline = start + Duration::from_millis(last) + PATIENCE;
        let done = tokio::time::timeout_at(deadline, &mut serving).await;
        let at = start.elapsed().as_millis() as u64;
        done.map(|ended| (ended, at))
    };
    let answered = async {
        let mut answers = Vec::new();
        for client in clients {
            answers.push(client.await.expect("a client task panicked"));
        }
        answers
    };
    let (served, answers) = tokio::join!(served, answered);
    probe.assert_no_held_borrow();
    let returned = match served {
        Ok((Ok(()), at)) => Some(at),
        Ok((Err(error), at)) => panic!(
            "serve panicked at {at} ms, and no request here panics: {}",
            panic_message(error)
        ),
        Err(_) => {
            serving.abort();
            None
        }
    };
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

/// Sends one request for `key` and returns the receiver of its answer.
fn ask(sender: &mpsc::Sender<Request>, key: u32) -> oneshot::Receiver<String> {
    let (reply, value) = oneshot::channel();
    let sent = sender.try_send(Request { key, reply });
    assert!(
        sent.is_ok(),
        "the request for key {key} could not be sent: serve no longer takes requests (it \
         returned, panicked or dropped its receiver)"
    );
    value
}

#[test]
fn a_miss_loads_then_a_hit_comes_from_the_cache() {
    local_test(|| async {
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

// ANCHOR: hit
#[test]
fn a_hit_never_waits_for_loads_in_flight() {
    local_test(|| async {
        /// Far more loads in flight than any limit a server might set "to be safe".
        const LOADS: u32 = 5_000;
        let (probe, cache, backend) = setup();
        // Key 0 is in the cache before serve starts, with a value the backend never gives.
        (cache.borrow_mut().entries).insert(0, "cached 0".into());
        // 5,000 misses at 0 ms, loading until 10 ms; a hit for key 0 at 5 ms, in the middle
        // of them; and one for key 1 at 12 ms, once its load has put it in the cache.
        let mut asks: Vec<(u64, u32)> = (1..=LOADS).map(|key| (0, key)).collect();
        asks.extend([(5, 0), (12, 1)]);
        let run = run_on((probe, cache, backend), &asks).await;

        let hit = Answer {
            key: 0,
            value: Ok("cached 0".into()),
            at: 5,
        };
        assert_eq!(
            run.answers[LOADS as usize], hit,
            "key 0 was in the cache before serve started, so the request for it at 5 ms is \
             a hit: answered at 5 ms with the cached value, while {LOADS} loads of other keys \
             are in flight. A hit never waits for loads: take every request as it comes and \
             start it at once, with no limit on the tasks in flight (a limit of any size \
             makes a hit wait once that many loads are in flight)"
        );
        assert_eq!(
            run.answers[LOADS as usize + 1],
            answer(1, 12),
            "key 1 was loaded by 10 ms, so the request for it at 12 ms is a hit, answered at once"
        );
        assert_eq!(
            (run.probe.loads.total(), run.probe.loads.peak()),
            (LOADS as usize, LOADS as usize),
            "(loads, loads in flight at once, at most): the backend is called for the \
             {LOADS} misses only, never for a hit, and all of them load at the same time"
        );
        let (hits, misses, _) = stats(&run.cache);
        assert_eq!((hits, misses), (2, LOADS as u64), "(hits, misses)");
        assert_eq!(run.returned, Some(12), "serve should return at 12 ms");
    });
}
// ANCHOR_END: hit

// ANCHOR: big_cache
#[test]
fn a_hit_costs_the_same_in_a_big_cache() {
    local_test(|| async {
        const ENTRIES: u32 = 100_000;
        /// What one request may allocate, all told: its channel, its task, its value.
        const MOST: usize = 16 * 1024;
        let (probe, cache, backend) = setup();
        (cache.borrow_mut().entries) = (0..ENTRIES).map(|k| (k, format!("value {k}"))).collect();
        let (sender, requests) = mpsc::channel(1);
        let serving = spawn_serve(backend, &cache, requests, budget(10));
        for n in 1..=10 {
            let key = n * 9_973 % ENTRIES;
            let before = allocated_bytes();
            let value = timeout(PATIENCE, ask(&sender, key)).await;
            let cost = allocated_bytes() - before;
            assert_eq!(
                value.ok().and_then(Result::ok),
                Some(format!("value {key}")),
                "request {n} (key {key}, in the cache) got no answer"
            );
            assert!(
                cost <= MOST,
                "a hit for key {key} in a cache of 100,000 entries allocated {cost} bytes, \
                 where a right answer needs well under {MOST} (its task, the client's \
                 channel, one clone of the value): the work of a request grows with the \
                 cache, as if each request copied it. Look the one key up in the shared \
                 cache (in a borrow that ends before any .await) and clone only its value, \
                 not the entries"
            );
        }
        drop(sender);
        let served = timeout(PATIENCE, serving).await;
        probe.assert_no_held_borrow();
        assert!(
            matches!(served, Ok(Ok(()))),
            "serve did not return normally after the channel closed"
        );
        assert_eq!(probe.loads.total(), 0, "every request was a hit: no load");
    });
}
// ANCHOR_END: big_cache

// ANCHOR: concurrently
#[test]
fn requests_are_served_concurrently() {
    local_test(|| async {
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
    local_test(|| async {
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
    local_test(|| async {
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

        // A hit is a request too. Two requests wait in the channel, a hit and a miss; serve
        // is polled once, and takes them. No other task runs during that poll, so neither
        // request can have been looked up, counted or answered yet: that is their tasks'
        // work, and they have not run.
        let (probe, cache, backend) = setup();
        (cache.borrow_mut().entries).insert(9, "cached 9".into());
        let (sender, requests) = mpsc::channel(2);
        let mut hit = ask(&sender, 9);
        let _miss = ask(&sender, 1);
        drop(sender);
        let mut serving = pin!(serving(backend, &cache, requests, budget(2)));
        let first = poll_fn(|cx| Poll::Ready(serving.as_mut().poll(cx))).await;
        assert!(
            first.is_pending(),
            "serve returned at its first poll, with two requests to serve"
        );
        assert_eq!(
            hit.try_recv(),
            Err(TryRecvError::Empty),
            "the hit for key 9 was answered during serve's own poll, before any task had \
             run: serve answered it in its own loop. Every request, a hit too, is served \
             in a task of its own; serve's loop only takes requests and collects tasks"
        );
        let (hits, misses, _) = stats(&cache);
        assert_eq!(
            (hits, misses),
            (0, 0),
            "(hits, misses) after serve's first poll, before any request's task had run: \
             serve counted in its own loop. A request counts once, when its task looks the \
             cache up (not a miss taken for granted and put right later)"
        );
        let served = timeout(PATIENCE, serving).await;
        probe.assert_no_held_borrow();
        assert!(served.is_ok(), "serve did not return after 1 s");
        assert_eq!(
            (hit.try_recv(), stats(&cache).0, stats(&cache).1),
            (Ok("cached 9".into()), 1, 1),
            "(the hit's answer, hits, misses) when serve returned"
        );
    });
}

// ANCHOR: idle
#[test]
fn an_idle_serve_waits_quietly_for_the_next_request() {
    local_test(|| async {
        /// Ten minutes of quiet, watched ten seconds at a time.
        const QUIET: u32 = 60;
        const STRETCH: Duration = Duration::from_secs(10);
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(1);
        let serving = spawn_serve(backend, &cache, requests, budget(3));
        let first = timeout(PATIENCE, ask(&sender, 1)).await;
        assert_eq!(
            first.ok().and_then(Result::ok),
            Some("value 1".into()),
            "the request for key 1 at 0 ms got no answer"
        );
        // Nothing to do: the channel stays open, no request comes, no load is in flight.
        // A runtime with paused time and nothing to do jumps to its next timer; a right
        // answer sets none, so only the test's sleep wakes the thread: a few times for each
        // stretch (a long timer moves down tokio's timer wheel in steps), never hundreds.
        for stretch in 1..=QUIET {
            let before = wake_ups();
            sleep(STRETCH).await;
            let woke = wake_ups() - before;
            let quiet = stretch * STRETCH.as_secs() as u32;
            if serving.is_finished() {
                match serving.await {
                    Ok(()) => panic!(
                        "serve returned after {quiet} s with nothing to do, while its channel \
                         was still open: a server waits for its next request as long as the \
                         channel is open, however long the quiet (no idle timeout); it \
                         returns only once the channel has closed"
                    ),
                    Err(error) => panic!(
                        "serve panicked after {quiet} s with nothing to do: {}",
                        panic_message(error)
                    ),
                }
            }
            assert!(
                woke <= 10,
                "in {} s with nothing to do (the channel open, no request, no load in \
                 flight), the runtime's thread woke up {woke} times, about once every {:.1} \
                 ms: some task polls on a timer instead of waiting (an interval that sweeps \
                 the JoinSet with try_join_next, a loop that sleeps and tries try_recv), \
                 wherever it runs. Await the two things that can happen, a request or the \
                 end of a task, and nothing wakes the thread until one of them does",
                STRETCH.as_secs(),
                STRETCH.as_secs_f64() * 1000.0 / woke as f64
            );
        }
        // Ten minutes later, the next request is served as if no time had passed.
        let at = Instant::now();
        let hit = timeout(PATIENCE, ask(&sender, 1)).await;
        let miss = timeout(PATIENCE, ask(&sender, 2)).await;
        assert_eq!(
            (
                hit.ok().and_then(Result::ok),
                miss.ok().and_then(Result::ok)
            ),
            (Some("value 1".into()), Some("value 2".into())),
            "after ten quiet minutes, the requests for key 1 (a hit) and key 2 (a miss) \
             should be answered"
        );
        assert_eq!(at.elapsed(), LOAD, "the hit at once, the miss 10 ms later");
        drop(sender);
        let served = timeout(PATIENCE, serving).await;
        probe.assert_no_held_borrow();
        assert!(
            matches!(served, Ok(Ok(()))),
            "serve did not return normally after the channel closed"
        );
    });
}
// ANCHOR_END: idle

/// Waits (up to `PATIENCE`) for `serve`, run by `spawn_serve`, to end, and checks that it
/// panicked with the backend's panic; returns when it did, in virtual ms from `since`.
async fn expect_the_backends_panic(serving: JoinHandle<()>, since: Instant, why: &str) -> u64 {
    let ended = timeout(PATIENCE, serving).await;
    let at = since.elapsed().as_millis() as u64;
    match ended {
        Err(_) => panic!(
            "1 s after the load of key 13 panicked, serve was still running as if nothing \
             had happened: {why}"
        ),
        Ok(Ok(())) => panic!(
            "the load of key 13 panicked, and serve returned at {at} ms as if all had gone \
             well: {why}"
        ),
        Ok(Err(error)) if !error.is_panic() => panic!("serve ended at {at} ms with {error}"),
        Ok(Err(error)) => {
            let payload = error.into_panic();
            assert_eq!(
                payload.downcast_ref::<Bug>(),
                Some(&Bug { key: 13 }),
                "serve panicked with a new panic of its own ({}), not with the load's own \
                 panic (the value it panicked with, a Bug {{ key: 13 }}): expect or unwrap on \
                 a JoinError starts a new panic, and whoever catches it can no longer tell \
                 what went wrong. Pass the task's own panic on: JoinError::into_panic gives \
                 it back, std::panic::resume_unwind goes on with it",
                describe(&*payload)
            );
            at
        }
    }
}

#[test]
fn a_panic_in_a_request_reaches_whoever_awaits_serve() {
    local_test(|| async {
        let (probe, cache, backend) = setup();
        probe.panics_on.set(Some(13));
        let (sender, requests) = mpsc::channel(3);
        let start_at = Instant::now();
        // serve runs in a task of its own here, so that its panic can be looked at.
        let serving = spawn_serve(backend, &cache, requests, budget(3));
        // Keys 1 and 13 at 0 ms (the load of key 13 panics at 10 ms), key 2 at 5 ms (its
        // load would end at 15 ms), and then the channel closes: no more requests.
        let _values = [ask(&sender, 1), ask(&sender, 13)];
        sleep(5 * MS).await;
        let mut value_2 = ask(&sender, 2);
        drop(sender);

        let at = expect_the_backends_panic(
            serving,
            start_at,
            "a request's panic must reach whoever awaits serve, as the starter's \
             `.expect(\"a request panicked\")` made it (JoinSet::join_all re-raises it; a \
             loop over join_next must not drop the JoinError)",
        )
        .await;
        assert_eq!(
            at, 10,
            "serve panicked at {at} ms, not at 10 ms when the load of key 13 panicked. Once \
             the channel has closed, too, a panic comes out of serve the moment its task \
             ends, and the requests still running stop with it; don't let them finish first"
        );
        sleep(10 * MS).await; // key 2's load would have ended at 15 ms
        assert_eq!(
            (probe.loads.now(), value_2.try_recv()),
            (0, Err(TryRecvError::Closed)),
            "(loads in flight, the answer for key 2) after serve panicked: the request for \
             key 2 should have been stopped and dropped unanswered with it"
        );
    });
}

// ANCHOR: panic_while_serving
#[test]
fn a_panic_while_serving_comes_out_of_serve_at_once() {
    local_test(|| async {
        let (probe, cache, backend) = setup();
        probe.panics_on.set(Some(13));
        let (sender, requests) = mpsc::channel(2);
        let start_at = Instant::now();
        let serving = spawn_serve(backend, &cache, requests, budget(2));
        // Key 13 at 0 ms: its load panics at 10 ms. Key 1 at 3 ms: its load would end
        // at 13 ms. The channel stays open: no request comes after the panic.
        let _value_13 = ask(&sender, 13);
        sleep(3 * MS).await;
        let mut value_1 = ask(&sender, 1);

        let at = expect_the_backends_panic(
            serving,
            start_at,
            "a task's panic must come out of serve as soon as the task ends, even while \
             the channel is open and no request comes. Collect each task as it ends \
             (tokio::select! over requests.recv() and tasks.join_next()), and re-raise a \
             JoinError with std::panic::resume_unwind(error.into_panic())",
        )
        .await;
        assert_eq!(
            at, 10,
            "serve panicked at {at} ms, not at 10 ms when the load of key 13 panicked: it \
             noticed only later. A server whose channel stays open may wait a long time \
             for its next request; collect each task as it ends, not when a request comes \
             or the channel closes"
        );

        sleep(10 * MS).await; // key 1's load would have ended at 13 ms
        assert_eq!(
            (probe.finished.get(), probe.loads.now()),
            (0, 0),
            "(loads finished, loads in flight) after serve panicked: the other requests \
             stop with it (its JoinSet is dropped as the panic unwinds)"
        );
        assert_eq!(
            value_1.try_recv(),
            Err(TryRecvError::Closed),
            "the request for key 1 should have been dropped unanswered when serve panicked"
        );
        drop(sender);
    });
}
// ANCHOR_END: panic_while_serving

// ANCHOR: flood
#[test]
fn a_panic_comes_out_at_once_even_under_a_flood_of_requests() {
    local_test(|| async {
        /// Requests waiting in the channel: more than one poll of serve takes (tokio lets
        /// a task receive about 128 messages or task results per poll, then makes it yield).
        const WAITING: usize = 300;
        /// When the flood starts and ends, in ms.
        const FLOOD: (u32, u32) = (9, 60);
        let (probe, cache, backend) = setup();
        probe.panics_on.set(Some(13));
        (cache.borrow_mut().entries).insert(0, "cached 0".into());
        let (sender, requests) = mpsc::channel(WAITING);
        let start_at = Instant::now();
        let serving = spawn_serve(
            backend,
            &cache,
            requests,
            budget(WAITING * FLOOD.1 as usize),
        );
        // Key 13 at 0 ms: its load panics at 10 ms. From 9 ms on, a flood of hits for key
        // 0: the channel is topped up, 1 ms passes (the runtime is never idle, so the test
        // moves the clock), and again.
        let _value_13 = ask(&sender, 13);
        sleep(FLOOD.0 * MS).await;
        let mut answers = Vec::new();
        while start_at.elapsed() < FLOOD.1 * MS && !serving.is_finished() {
            loop {
                let (reply, value) = oneshot::channel();
                if sender.try_send(Request { key: 0, reply }).is_err() {
                    break;
                }
                answers.push(value);
            }
            tokio::time::advance(MS).await;
        }
        let sent = answers.len();
        let at = expect_the_backends_panic(
            serving,
            start_at,
            "a task's panic must come out of serve as soon as the task ends, even while \
             the channel is never empty",
        )
        .await;
        // Under the flood the load's timer fires a little late; count from its panic.
        let panicked = probe
            .panicked_at
            .get()
            .expect("the load of key 13 panicked");
        let late = (start_at + at as u32 * MS).saturating_duration_since(panicked);
        assert!(
            late <= 10 * MS,
            "the load of key 13 panicked at {} ms, and serve panicked only at {at} ms, when \
             the flood ended ({sent} requests): while the channel was never empty, serve \
             took request after request and collected no finished task, so the panic (and \
             every finished task) waited. A select! that is `biased;` towards the channel \
             starves its other branch whenever a request is ready; let select! pick at \
             random, or put the branch that collects tasks first",
            (panicked - start_at).as_millis()
        );
        drop(sender);
    });
}
// ANCHOR_END: flood

// ANCHOR: interleaved
#[test]
fn no_borrow_of_the_cache_is_held_across_an_await() {
    local_test(|| async {
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
    local_test(|| async {
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(5);
        let values: Vec<_> = (1..=5).map(|key| ask(&sender, key)).collect();
        drop(sender); // closed: five requests to serve, then no more

        let start = Instant::now();
        let served = timeout(PATIENCE, serving(backend, &cache, requests, budget(5))).await;

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
    local_test(|| async {
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(3);
        let values: Vec<_> = (1..=3).map(|key| ask(&sender, key)).collect();
        // `sender` stays open, so serve would wait for more requests. Stop it at 5 ms,
        // as a server stops at shutdown: by dropping its future.
        let served = timeout(5 * MS, serving(backend, &cache, requests, budget(3))).await;
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

// ANCHOR: stopped_load
#[test]
fn a_stopped_load_was_a_miss_and_caches_nothing() {
    local_test(|| async {
        let (probe, cache, backend) = setup();
        (cache.borrow_mut().entries).insert(9, "cached 9".into());
        let (sender, requests) = mpsc::channel(3);
        let mut value_9 = ask(&sender, 9); // a hit
        let _values = [ask(&sender, 1), ask(&sender, 2)]; // misses, loading until 10 ms
        let served = timeout(5 * MS, serving(backend, &cache, requests, budget(3))).await;
        probe.assert_no_held_borrow();
        assert!(served.is_err(), "serve returned while its channel was open");
        assert_eq!(
            probe.loads.total(),
            2,
            "by 5 ms, the loads of keys 1 and 2 should both have started (they run concurrently)"
        );
        sleep(20 * MS).await;

        assert_eq!(
            value_9.try_recv(),
            Ok("cached 9".into()),
            "key 9 was in the cache: its request is answered at once, before serve is stopped"
        );
        let mut want = HashMap::new();
        want.insert(9, "cached 9".to_string());
        assert_eq!(
            stats(&cache),
            (1, 2, want),
            "(hits, misses, entries) after serve was stopped at 5 ms, in the middle of the \
             loads of keys 1 and 2. A request counts when it looks the cache up: keys 1 and \
             2 found nothing there, so they are misses, even though their loads were \
             stopped; count the miss at the lookup, before the load, not when the load \
             ends. And a stopped load has no value to cache"
        );
        drop(sender);
    });
}
// ANCHOR_END: stopped_load

/// Fails the test, naming the mistake, if `serve` panicked.
fn no_panic_when_clients_left(ended: Result<(), JoinError>) {
    if let Err(error) = ended {
        panic!(
            "serve panicked when some clients had stopped waiting for their answers: {}. \
             A client may go away; reply.send(value) then hands the value back in an Err, \
             which is no bug of the server's: ignore it (`let _ = reply.send(value)`), \
             don't unwrap it",
            panic_message(error)
        );
    }
}

// ANCHOR: client_gone
#[test]
fn a_load_whose_client_left_still_counts_and_is_cached() {
    local_test(|| async {
        let (probe, cache, backend) = setup();
        (cache.borrow_mut().entries).insert(9, "cached 9".into());
        let (sender, requests) = mpsc::channel(4);
        let start_at = Instant::now();
        let mut serving = spawn_serve(backend, &cache, requests, budget(4));
        // At 0 ms: key 7 for a client that gives up at 5 ms, in the middle of the load;
        // keys 8 (a miss) and 9 (a hit) for clients that are gone before serve has them.
        let value_7 = ask(&sender, 7);
        drop([ask(&sender, 8), ask(&sender, 9)]);
        sleep(5 * MS).await;
        drop(value_7);
        sleep(15 * MS).await;
        if serving.is_finished() {
            no_panic_when_clients_left(serving.await);
            panic!("serve returned while its channel was open");
        }
        // At 20 ms, a client that waits: key 7 has been loaded and cached by now.
        let again = timeout(PATIENCE, ask(&sender, 7)).await;
        let at = start_at.elapsed().as_millis() as u64;
        drop(sender);
        let served = timeout(PATIENCE, &mut serving).await;
        match served {
            Ok(ended) => no_panic_when_clients_left(ended),
            Err(_) => panic!("serve did not return 1 s after its channel closed"),
        }
        assert_eq!(
            (again.map(|value| value.ok()), at),
            (Ok(Some("value 7".into())), 20),
            "(answer, virtual ms) of the request for key 7 at 20 ms: the load that started \
             at 0 ms should have finished at 10 ms and been cached, though its client left \
             at 5 ms, so this request is a hit, answered at once. A load once started is \
             finished and cached: the next request for the key needs it"
        );
        assert_eq!(
            (probe.loads.total(), probe.finished.get()),
            (2, 2),
            "(loads started, finished): one each for keys 7 and 8, both run to the end. \
             Key 8's client was gone before serve took its request, and it is served all \
             the same: every request serve takes is looked up and counted, and a miss \
             loaded and cached, whether or not its client still waits"
        );
        let mut want = entries(&[7, 8]);
        want.insert(9, "cached 9".into());
        assert_eq!(
            stats(&cache),
            (2, 2, want),
            "(hits, misses, entries): every request serve takes counts when it looks the \
             cache up, whether or not its client still waits: key 9 a hit, keys 7 and 8 \
             misses (both loaded and cached), key 7 at 20 ms a hit"
        );
    });
}
// ANCHOR_END: client_gone

// ANCHOR: let_go
#[test]
fn serve_lets_go_of_the_backend_and_the_cache() {
    local_test(|| async {
        let leak = "Box::leak (a &'static that spawn_local accepts), mem::forget or \
            ManuallyDrop keep it for ever, and a server that calls serve again leaks one \
            every time. Share it with an Rc that serve owns and each task clones: the \
            last of them to end drops it";

        // serve returns at once: the channel is closed before it starts, with no request.
        // It returns without waiting for anything, so whatever it started and did not
        // wait for has not even run yet.
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(1);
        drop(sender);
        let served = timeout(PATIENCE, serving(backend, &cache, requests, budget(0))).await;
        assert!(
            served.is_ok(),
            "serve did not return, with its channel closed and empty"
        );
        assert!(
            probe.backend_dropped.get() && Rc::strong_count(&cache) == 1,
            "serve returned with no request served, and the backend was {} and {} more \
             handle(s) on the test's cache were alive: something serve started still owns \
             them (a task spawned with spawn_local whose handle was dropped, a helper that \
             keeps the cache, runs on after serve has returned). Everything serve starts \
             ends before it returns: keep it in the JoinSet, and wait for it",
            if probe.backend_dropped.get() {
                "dropped"
            } else {
                "not dropped"
            },
            Rc::strong_count(&cache) - 1
        );

        // serve returns: the channel closes with two requests loading.
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(2);
        let _values = [ask(&sender, 1), ask(&sender, 2)];
        drop(sender);
        let served = timeout(PATIENCE, serving(backend, &cache, requests, budget(2))).await;
        probe.assert_no_held_borrow();
        assert!(served.is_ok(), "serve did not return after 1 s");
        assert!(
            probe.backend_dropped.get(),
            "serve returned, and the backend it was given was not dropped: something still \
             owns it. {leak}"
        );
        assert_eq!(
            Rc::strong_count(&cache),
            1,
            "serve returned, and it left {} more handle(s) on the test's cache alive. {leak}",
            Rc::strong_count(&cache) - 1
        );

        // serve is dropped at 5 ms, in the middle of two loads.
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(2);
        let _values = [ask(&sender, 1), ask(&sender, 2)];
        let served = timeout(5 * MS, serving(backend, &cache, requests, budget(2))).await;
        assert!(served.is_err(), "serve returned while its channel was open");
        sleep(MS).await; // the aborted tasks are dropped on the runtime's next turn
        assert!(
            probe.backend_dropped.get() && Rc::strong_count(&cache) == 1,
            "serve was dropped at 5 ms, and 1 ms later the backend was {} and {} more \
             handle(s) on the cache were alive: its tasks should have been stopped and \
             dropped with it. {leak}",
            if probe.backend_dropped.get() {
                "dropped"
            } else {
                "not dropped"
            },
            Rc::strong_count(&cache) - 1
        );
        drop(sender);
    });
}
// ANCHOR_END: let_go

// ANCHOR: memory
#[test]
fn memory_stays_flat_however_many_requests_are_served() {
    local_test(|| async {
        const FIRST: usize = 200;
        const THEN: usize = 5_000;
        /// How much more memory may be live after `THEN` more requests: a right answer
        /// keeps the same few buffers the whole time.
        const SLACK_BYTES: isize = 1_024;
        const SLACK_BLOCKS: isize = 4;
        let (probe, cache, backend) = setup();
        let (sender, requests) = mpsc::channel(1);
        let mut serving = spawn_serve(backend, &cache, requests, budget(FIRST + THEN));
        // One client asks, waits for its answer, and asks again: one request in flight at
        // a time, 5,200 in all, over 8 keys (8 misses, then hits). The channel stays open.
        let (mut blocks, mut bytes) = (0, 0);
        for n in 1..=FIRST + THEN {
            let key = (n % 8) as u32;
            let (reply, value) = oneshot::channel();
            let sent = sender.send(Request { key, reply }).await;
            assert!(sent.is_ok(), "serve stopped taking requests");
            let value = timeout(PATIENCE, value).await;
            assert_eq!(
                value.ok().and_then(Result::ok),
                Some(format!("value {key}")),
                "request {n} (key {key}) got no answer"
            );
            if n == FIRST {
                let (hits, misses, _) = stats(&cache);
                assert_eq!(
                    (hits, misses),
                    (192, 8),
                    "(hits, misses) in the test's cache after 200 answers, while serve is \
                     still running: each request counts in the cache when it looks the cache \
                     up. Counts kept somewhere else and written into the cache later (when \
                     serve ends, by a Drop guard) are not there for anyone who reads them \
                     while the server runs, which is all its life"
                );
                (blocks, bytes) = (live_blocks(), live_bytes());
            } else if n > FIRST && (n - FIRST).is_multiple_of(1_000) {
                let (more_blocks, more_bytes) = (live_blocks() - blocks, live_bytes() - bytes);
                assert!(
                    more_blocks <= SLACK_BLOCKS && more_bytes <= SLACK_BYTES,
                    "serve answered {served} requests one after another, never more than one \
                     in flight, and {more_bytes} more bytes in {more_blocks} more blocks were \
                     allocated than after the first 200: about {per} bytes per request, and \
                     a server that runs for days must not keep anything per request it ever \
                     served. A finished task stays in its JoinSet (or its JoinHandle, or \
                     whatever keeps a handle on it) until it is collected: collect each task \
                     as it ends. And keep no log, list or map that gains an entry per request \
                     (a Vec or a HashMap grows inside one block: the bytes are counted too)",
                    served = n - FIRST,
                    per = more_bytes / (n - FIRST) as isize,
                );
            }
        }
        drop(sender);
        let served = timeout(PATIENCE, &mut serving).await;
        probe.assert_no_held_borrow();
        assert!(
            matches!(served, Ok(Ok(()))),
            "serve did not return normally after the channel closed"
        );
    });
}
// ANCHOR_END: memory
