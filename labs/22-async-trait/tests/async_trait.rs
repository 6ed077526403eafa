//! Lab 22's tests. The stores here are what a single-threaded service has: a cache that
//! keeps its entries in an `Rc<RefCell<_>>` and counts in a `Cell` (neither `Send` nor
//! `Sync`), and a database that borrows its table from the test (not `'static`). Both
//! are used through generics (`total`) and through `dyn` (`Tiers`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use async_trait_lab::{DynStore, Store, Tiers, total};
use lab_support::Gauge;
use lab_support::alloc::{CountingAllocator, allocations_during, live_during};
use lab_support::{checked, poll_once, poll_to_end, within, yield_once};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

// ANCHOR: cache
/// An in-memory cache. Its entries are shared with the test through an `Rc<RefCell<_>>`,
/// and it counts its lookups in a `Cell`: it is neither `Send` nor `Sync`.
struct Cache<'g> {
    entries: Rc<RefCell<HashMap<u32, u64>>>,
    lookups: Cell<usize>,
    in_flight: &'g Gauge,
}

impl Store for Cache<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        self.lookups.set(self.lookups.get() + 1);
        let _in_flight = self.in_flight.enter();
        // An `Rc` held across an `.await`: this future is not `Send`.
        let entries = Rc::clone(&self.entries);
        yield_once().await;
        entries.borrow().get(&key).copied()
    }
}
// ANCHOR_END: cache

// ANCHOR: db
/// A database that borrows its table, its log and its gauge from the test (so it is not
/// `'static`), and answers after 10 ms.
struct Db<'t> {
    table: &'t HashMap<u32, u64>,
    log: &'t RefCell<Vec<u32>>,
    busy: &'t Gauge,
}

impl Store for Db<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        self.log.borrow_mut().push(key);
        let _busy = self.busy.enter();
        tokio::time::sleep(Duration::from_millis(10)).await;
        self.table.get(&key).copied()
    }
}
// ANCHOR_END: db

fn cache<'g>(pairs: &[(u32, u64)], in_flight: &'g Gauge) -> Cache<'g> {
    Cache {
        entries: Rc::new(RefCell::new(pairs.iter().copied().collect())),
        lookups: Cell::new(0),
        in_flight,
    }
}

/// Generous: each lookup of these tests needs two polls.
const POLLS: usize = 1_000;

/// Runs the future `make()` builds on a current-thread tokio runtime with paused
/// (virtual) time, on a fresh thread, and fails the test if it is still running after
/// a few seconds of wall-clock time. A right answer takes milliseconds; the limit is
/// only there so that a blocked thread fails the test instead of hanging it.
fn paused<F, Fut>(make: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    within(
        Duration::from_secs(5),
        "the lookups stopped. With one thread, a second call that waits for the first \
         (a std Mutex locked while another call holds its guard across an .await) blocks \
         that thread, and the first call can never run again to let it in. The stores \
         are borrowed and on one thread: two calls need no protection from each other",
        move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .expect("build a paused current-thread runtime")
                .block_on(make())
        },
    )
}

#[test]
fn a_store_with_rc_state_works_through_generics() {
    let gauge = Gauge::new();
    let cache = cache(&[(1, 10), (2, 20)], &gauge);
    // The test still holds the entries, and changes them after the cache was built.
    let entries = Rc::clone(&cache.entries);
    entries.borrow_mut().insert(3, 30);

    assert_eq!(poll_to_end(POLLS, total(&cache, &[1, 2, 3, 4])), 60);
    assert_eq!(cache.lookups.get(), 4, "one lookup per key");
    assert_eq!(gauge.now(), 0, "no lookup is left running");
}

// ANCHOR: static_path
#[test]
fn the_static_path_allocates_nothing() {
    let gauge = Gauge::new();
    let cache = cache(&[(1, 10), (2, 20), (3, 30)], &gauge);
    let keys = [1, 2, 3, 4, 1, 2];

    let (sum, allocations) = allocations_during(|| poll_to_end(POLLS, total(&cache, &keys)));

    assert_eq!(sum, 90);
    assert_eq!(
        allocations, 0,
        "`total` over a concrete store allocated {allocations} times: the generic path \
         must not box the future (only calls through `dyn` may)"
    );
}
// ANCHOR_END: static_path

#[test]
fn each_dyn_call_boxes_at_most_once() {
    let gauge = Gauge::new();
    let near = cache(&[(1, 10)], &gauge);
    let far = cache(&[(1, 99), (2, 20)], &gauge);
    let layers: [&dyn DynStore; 2] = [&near, &far];
    let tiers = Tiers::new(&layers);
    let keys = [1, 2, 3, 1];

    let ((sum, allocations), live) =
        live_during(|| allocations_during(|| poll_to_end(POLLS, total(&tiers, &keys))));

    assert_eq!(sum, 10 + 20 + 10, "the first tier that knows a key answers");
    let dyn_calls = near.lookups.get() + far.lookups.get();
    assert_eq!(
        dyn_calls,
        4 + 2,
        "each key is tried in order until a tier knows it"
    );
    assert!(
        allocations <= dyn_calls,
        "{dyn_calls} calls through `dyn` made {allocations} allocations: one box per call \
         is the price of a trait object, anything more is not"
    );
    assert_eq!(
        live, 0,
        "after {dyn_calls} calls through `dyn` had all finished, {live} of their \
         allocations were never freed: a box was leaked (kept from being dropped with \
         ManuallyDrop or MaybeUninit, forgotten, or turned into a raw pointer). Let each \
         box drop once its lookup has answered"
    );
}

// ANCHOR: borrowed
#[test]
fn a_borrowed_store_works_through_dyn() {
    paused(|| async {
        let gauge = Gauge::new();
        let busy = Gauge::new();
        let table = HashMap::from([(1, 100), (2, 200)]);
        let log = RefCell::new(Vec::new());
        let near = cache(&[(1, 10)], &gauge);
        let db = Db {
            table: &table,
            log: &log,
            busy: &busy,
        };
        let layers: [&dyn DynStore; 2] = [&near, &db];
        let tiers = Tiers::new(&layers);

        assert_eq!(tiers.get(1).await, Some(10), "the cache knows 1");
        assert_eq!(tiers.get(2).await, Some(200), "the database knows 2");
        assert_eq!(tiers.get(3).await, None, "nobody knows 3");
        assert_eq!(
            *log.borrow(),
            [2, 3],
            "the database is asked only on a cache miss"
        );
        assert_eq!(total(&tiers, &[1, 2, 3]).await, 210);
    });
}
// ANCHOR_END: borrowed

#[test]
fn tiers_are_a_store_and_can_be_a_tier() {
    let gauge = Gauge::new();
    let a = cache(&[(1, 1)], &gauge);
    let b = cache(&[(2, 2)], &gauge);
    let c = cache(&[(3, 3)], &gauge);
    let inner_layers: [&dyn DynStore; 2] = [&a, &b];
    let inner = Tiers::new(&inner_layers);
    let outer_layers: [&dyn DynStore; 2] = [&inner, &c];
    let outer = Tiers::new(&outer_layers);

    assert_eq!(poll_to_end(POLLS, total(&outer, &[1, 2, 3, 4])), 6);
    assert_eq!(
        (a.lookups.get(), b.lookups.get(), c.lookups.get()),
        (4, 3, 2),
        "tiers are tried in order, and stop at the first that knows the key"
    );
    assert_eq!(gauge.now(), 0);
}

#[test]
fn dyn_calls_on_one_store_overlap() {
    paused(|| async {
        let busy = Gauge::new();
        let table = HashMap::from([(1, 100), (2, 200)]);
        let log = RefCell::new(Vec::new());
        let db = Db {
            table: &table,
            log: &log,
            busy: &busy,
        };
        let layers: [&dyn DynStore; 1] = [&db];
        let tiers = Tiers::new(&layers);
        let start = tokio::time::Instant::now();

        // Two calls borrow the same `&db` at once: no lock, no clone, no `Arc`. A right
        // answer is polled about three times; a call that waits for the other by polling
        // a flag again and again runs out of the budget at once.
        let ((one, two), _polls) = checked(
            20,
            "two overlapping lookups on one store (does one call wait for the other by \
             checking a flag again and again? Two calls that only borrow need no turns)",
            async { tokio::join!(tiers.get(1), tiers.get(2)) },
        )
        .await;

        assert_eq!((one, two), (Some(100), Some(200)));
        let elapsed = start.elapsed();
        assert_eq!(
            elapsed,
            Duration::from_millis(10),
            "two lookups of 10 ms each took {elapsed:?} of virtual time together: the \
             second waited for the first (a lock, a flag or a queue of turns in `Tiers`?). \
             Both only borrow the store, so they can run at once"
        );
        assert_eq!(busy.peak(), 2);
        assert_eq!(busy.now(), 0);
    });
}

// ANCHOR: borrows_for_the_call
/// `R: BoxedFor<'s>` holds only when `R` is a boxed lookup that borrows for exactly `'s`.
/// (A `Send` box qualifies too, so that an answer that keeps `Send` hears about `Send`.)
trait BoxedFor<'s> {}
impl<'s> BoxedFor<'s> for Pin<Box<dyn Future<Output = Option<u64>> + 's>> {}
impl<'s> BoxedFor<'s> for Pin<Box<dyn Future<Output = Option<u64>> + Send + 's>> {}

/// Calls `get_dyn` on `store` and insists that the box it returns borrows for `'s`, the
/// borrow of the store, and no longer. `get_dyn` is the method itself (not a closure),
/// so its declared return type is what is checked.
fn call_for_the_borrow<'s, S: ?Sized, R: BoxedFor<'s>>(
    store: &'s S,
    get_dyn: impl FnOnce(&'s S, u32) -> R,
    key: u32,
) -> R {
    get_dyn(store, key)
}

#[test]
fn a_dyn_call_borrows_its_store_for_the_call_only() {
    let gauge = Gauge::new();
    let near = cache(&[(7, 70)], &gauge);
    let store: &dyn DynStore = &near;
    // If this line does not compile ("`near` does not live long enough ... argument
    // requires that `near` is borrowed for `'static`"), `get_dyn` declares a box that
    // outlives the store it reads: `Box<dyn Future>` with no lifetime is `+ 'static`, and
    // only a clone or an unsafe lifetime cast can fill it. Give the box the lifetime of
    // `&self`.
    let lookup = call_for_the_borrow(store, DynStore::get_dyn, 7);
    assert_eq!(poll_to_end(POLLS, lookup), Some(70));
    assert_eq!(gauge.now(), 0);
}
// ANCHOR_END: borrows_for_the_call

#[test]
fn dropping_a_dyn_call_drops_the_lookup() {
    let gauge = Gauge::new();
    let near = cache(&[(1, 10)], &gauge);
    let layers: [&dyn DynStore; 1] = [&near];
    let tiers = Tiers::new(&layers);
    {
        let mut lookup = pin!(tiers.get(1));
        assert_eq!(poll_once(lookup.as_mut()), Poll::Pending);
        assert_eq!(gauge.now(), 1, "the cache's lookup started");
    }
    assert_eq!(
        gauge.now(),
        0,
        "dropping the call through `dyn` must drop the cache's future inside it"
    );
    assert_eq!(gauge.total(), 1);
}

#[test]
fn any_stored_value_is_an_answer() {
    let gauge = Gauge::new();
    for value in [0, u64::MAX] {
        let near = cache(&[(5, value)], &gauge);
        let far = cache(&[(5, 50)], &gauge);
        let layers: [&dyn DynStore; 2] = [&near, &far];
        let tiers = Tiers::new(&layers);

        let answer = poll_to_end(POLLS, tiers.get(5));
        assert_eq!(
            answer,
            Some(value),
            "the first tier stores {value} under key 5, so `Tiers` must answer \
             Some({value}), and it answered {answer:?}: it took the value {value} for a \
             miss (an answer turned into a number with unwrap_or(0), or u64::MAX kept as \
             a \"not found\" mark?). Every u64 is a value a store may hold; only None \
             means a tier does not know the key"
        );
        assert_eq!(
            far.lookups.get(),
            0,
            "the first tier answered Some({value}), yet the second tier was asked too: a \
             tier that knows the key ends the search, whatever the value"
        );
    }
}

/// What the tiers of the contract tests write down, in the order it happens: which tier
/// started a lookup of which key, and whether a tier started while another was still
/// looking.
#[derive(Default)]
struct Desk {
    asked: RefCell<Vec<(usize, u32)>>,
    looking: RefCell<Vec<usize>>,
    /// The first tier that started while another was looking, and that other tier.
    overlap: Cell<Option<(usize, usize)>>,
}

/// A tier of the contract tests: tier number `index` of its list, with entries the test
/// changes between calls, and a lookup that is pending `pending` times before it answers
/// (a slow tier is not a missing one).
struct Layer<'d> {
    index: usize,
    entries: RefCell<HashMap<u32, u64>>,
    pending: usize,
    desk: &'d Desk,
}

impl Store for Layer<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        let desk = self.desk;
        desk.asked.borrow_mut().push((self.index, key));
        let busy = desk.looking.borrow().first().copied();
        if let Some(busy) = busy
            && desk.overlap.get().is_none()
        {
            desk.overlap.set(Some((self.index, busy)));
        }
        desk.looking.borrow_mut().push(self.index);
        let _looking = Looking(desk, self.index);
        for _ in 0..self.pending {
            yield_once().await;
        }
        self.entries.borrow().get(&key).copied()
    }
}

/// Takes a tier off the desk's list of tiers looking when its lookup ends or is dropped.
struct Looking<'d>(&'d Desk, usize);

impl Drop for Looking<'_> {
    fn drop(&mut self) {
        let mut looking = self.0.looking.borrow_mut();
        if let Some(at) = looking.iter().position(|&tier| tier == self.1) {
            looking.remove(at);
        }
    }
}

/// `n` tiers on one desk: tier `i` alone knows key `10 + i` (value `100 * (i + 1)`), and
/// some tiers are slow (pending up to 5 times).
fn layers(n: usize, desk: &Desk) -> Vec<Layer<'_>> {
    (0..n)
        .map(|index| Layer {
            index,
            entries: RefCell::new(HashMap::from([(own_key(index), own_value(index))])),
            pending: [5, 0, 2, 4][index % 4],
            desk,
        })
        .collect()
}

fn own_key(tier: usize) -> u32 {
    10 + u32::try_from(tier).expect("a small tier number")
}

fn own_value(tier: usize) -> u64 {
    100 * (u64::from(own_key(tier)) - 9)
}

/// What a contract test does next: ask `Tiers` for a key (and why that call is
/// interesting), or change what a tier knows.
enum Step {
    Ask(u32, String),
    Put(usize, u32, u64),
    Forget(usize, u32),
}

/// The steps of the contract for `n` tiers: every key once, then again; a value changed
/// in the last tier; a key the first tier learns after the last tier answered it; keys
/// added after a miss, to the first tier and to one in the middle; a key forgotten.
fn contract(n: usize) -> Vec<Step> {
    use Step::{Ask, Forget, Put};
    let last = n - 1;
    let middle = n / 2;
    let mut steps = Vec::new();
    for round in ["", " again"] {
        for tier in 0..n {
            let key = own_key(tier);
            steps.push(Ask(
                key,
                format!("key {key}{round}, which only tier {tier} knows"),
            ));
        }
        steps.push(Ask(99, format!("key 99{round}, which no tier knows")));
    }
    let key = own_key(last);
    steps.push(Put(last, key, 7));
    steps.push(Ask(
        key,
        format!("key {key}, after its value in tier {last} changed to 7"),
    ));
    steps.push(Put(0, key, 8));
    steps.push(Ask(
        key,
        if last == 0 {
            format!("key {key}, after its value changed again, to 8")
        } else {
            format!("key {key}, after tier 0 learned it (8), which tier {last} answered before")
        },
    ));
    steps.push(Put(0, 99, 9));
    steps.push(Ask(
        99,
        "key 99, after tier 0 learned it (9) since the miss".into(),
    ));
    steps.push(Ask(98, "key 98, which no tier knows".into()));
    steps.push(Put(middle, 98, 6));
    steps.push(Ask(
        98,
        format!("key 98, after tier {middle} learned it (6) since the miss"),
    ));
    steps.push(Forget(0, 10));
    steps.push(Ask(10, "key 10, after tier 0 forgot it".into()));
    steps
}

/// Names what `Tiers` did wrong when it asked the tiers `asked` (in order) instead of
/// `expected`, or answered `got` instead of `want`.
fn mistake(
    desk: &Desk,
    n: usize,
    key: u32,
    expected: &[usize],
    asked: &[usize],
    (want, got): (Option<u64>, Option<u64>),
) -> String {
    let answered = *expected.last().expect("at least one tier");
    if let Some((started, busy)) = desk.overlap.get() {
        format!(
            "started tier {started} while tier {busy} was still looking: tiers are asked \
             one after the other, each only once the one before it answered None. A slow \
             tier is not a missing one, and a tier started early is asked for nothing \
             when the slow one knows the key (the database behind a slow cache)"
        )
    } else if asked.is_empty() {
        "asked no tier at all: it answered from a memory of its own (an answer or a miss \
         kept from an earlier call). The tiers change between calls (a value changes, a \
         key is added or forgotten), and only asking them sees it; keeping answers is a \
         cache's job, and a cache is one of the tiers"
            .to_string()
    } else if asked[0] != 0 {
        format!(
            "began with tier {}, skipping the tiers in front of it: did it remember which \
             tier answered key {key} before, or which tiers missed it? Either memory goes \
             stale: a tier in front may have learned the key since. Every call starts at \
             the first tier",
            asked[0]
        )
    } else if expected.starts_with(asked) {
        format!(
            "stopped after {} of the {n} tiers, though none of them knew key {key}: the \
             tiers after them were dropped or never asked (a list kept only up to a few \
             tiers?). `Tiers` is a list of any length: it asks each tier in order until \
             one knows the key",
            asked.len()
        )
    } else if asked.starts_with(expected) {
        format!(
            "went on to tier {} after tier {answered} knew key {key}: the first tier that \
             knows the key ends the search, and the tiers after it are not asked",
            asked[expected.len()]
        )
    } else if asked != expected {
        let at = asked
            .iter()
            .zip(expected)
            .position(|(a, e)| a != e)
            .unwrap_or(asked.len().min(expected.len()));
        format!(
            "skipped tier {}: did it remember that this tier missed key {key} on an \
             earlier call, or leave it out by its place in the list? A miss is true only \
             when it is answered, and a tier may learn the key afterwards. Every call asks \
             each tier in order",
            expected[at]
        )
    } else {
        format!(
            "asked the right tiers, in order, but answered {got:?} instead of {want:?}, \
             the answer of tier {answered}"
        )
    }
}

#[test]
fn tiers_ask_every_tier_in_order_on_every_call() {
    for n in [1, 2, 3, 5, 9] {
        let desk = Desk::default();
        let stores = layers(n, &desk);
        let list: Vec<&dyn DynStore> = stores.iter().map(|s| s as &dyn DynStore).collect();
        let tiers = Tiers::new(&list);

        for step in contract(n) {
            let (key, why) = match step {
                Step::Put(tier, key, value) => {
                    stores[tier].entries.borrow_mut().insert(key, value);
                    continue;
                }
                Step::Forget(tier, key) => {
                    stores[tier].entries.borrow_mut().remove(&key);
                    continue;
                }
                Step::Ask(key, why) => (key, why),
            };
            let knows = stores
                .iter()
                .position(|store| store.entries.borrow().contains_key(&key));
            let want = knows.and_then(|tier| stores[tier].entries.borrow().get(&key).copied());
            let expected: Vec<usize> = (0..=knows.unwrap_or(n - 1)).collect();
            desk.asked.borrow_mut().clear();
            desk.overlap.set(None);

            let got = poll_to_end(POLLS, tiers.get(key));

            let asked: Vec<usize> = desk.asked.borrow().iter().map(|&(tier, _)| tier).collect();
            if (&asked, got) != (&expected, want) || desk.overlap.get().is_some() {
                let what = mistake(&desk, n, key, &expected, &asked, (want, got));
                let shape = if n == 1 {
                    "1 tier".into()
                } else {
                    format!("{n} tiers")
                };
                panic!(
                    "{shape}, {why}: `Tiers` {what}.\n  expected: tiers {expected:?} \
                     asked, in that order, and the answer {want:?}\n  it asked tiers \
                     {asked:?} and answered {got:?}"
                );
            }
        }
    }
}

#[test]
fn each_call_keeps_its_own_place_in_the_list() {
    within(
        Duration::from_secs(2),
        "two overlapping calls stopped: the second call waited for the first (a std Mutex \
         locked while the first call holds its guard across an .await?), and on one \
         thread the first call can never run again to let it in. Calls that only borrow \
         the stores need no protection from each other",
        one_place_per_call,
    );
}

fn one_place_per_call() {
    let desk = Desk::default();
    let mut stores = layers(2, &desk);
    // Tier 0 answers at once; tier 1 knows 11, 21 and 22, and is slow.
    stores[0].pending = 0;
    stores[1].pending = 3;
    stores[1]
        .entries
        .borrow_mut()
        .extend([(21, 2100), (22, 2200)]);
    let list: Vec<&dyn DynStore> = stores.iter().map(|s| s as &dyn DynStore).collect();
    let tiers = Tiers::new(&list);
    let asked = || -> Vec<(usize, u32)> { desk.asked.borrow_mut().drain(..).collect() };

    // A call dropped while the second tier is looking, as a timeout drops it.
    {
        let mut lookup = pin!(tiers.get(11));
        for _ in 0..POLLS {
            if desk.asked.borrow().contains(&(1, 11)) {
                break;
            }
            let poll = poll_once(lookup.as_mut());
            assert!(
                poll.is_pending(),
                "the call for key 11 answered {poll:?} before it asked tier 1, the only \
                 tier that knows 11"
            );
        }
    }
    assert!(
        desk.looking.borrow().is_empty(),
        "a call was dropped while tier 1 was looking, and tier 1's lookup went on: \
         dropping the call must drop the lookup inside it"
    );
    asked();
    let answer = poll_to_end(POLLS, tiers.get(10));
    let after_drop = asked();
    assert!(
        answer == Some(100) && after_drop.first() == Some(&(0, 10)),
        "a call for key 11 was dropped while tier 1 was looking (as a timeout drops it); \
         the next call, for key 10, which tier 0 knows, asked (tier, key) {after_drop:?} \
         and answered {answer:?}, instead of asking tier 0 first and answering Some(100). \
         The dropped call left its place in the list behind, in `Tiers` (a cursor in a Cell?), and the next call \
         started from there. Keep a call's place in the call's own future, a local \
         variable of `get`: a dropped call then takes it along"
    );

    // Two calls at once, each for a key only the second tier knows.
    let answers = poll_to_end(POLLS, async { tokio::join!(tiers.get(21), tiers.get(22)) });
    let both = asked();
    let mut sorted = both.clone();
    sorted.sort_unstable();
    assert_eq!(
        (answers, sorted),
        (
            (Some(2100), Some(2200)),
            vec![(0, 21), (0, 22), (1, 21), (1, 22)]
        ),
        "two overlapping calls on one `Tiers`, for keys 21 and 22 (only tier 1 knows \
         them), answered {answers:?} and asked (tier, key) {both:?}: each call must ask \
         tier 0, then tier 1, and find its key. The calls share one place in the list (a \
         cursor kept in `Tiers`?), so one moved the other's on. Keep each call's place in \
         its own future"
    );
}

/// A tier with a bug: its lookup panics.
struct Broken;

impl Store for Broken {
    async fn get(&self, _key: u32) -> Option<u64> {
        yield_once().await;
        panic!("the test's broken tier panics here, on purpose: this panic must reach the test")
    }
}

#[test]
fn a_panicking_tier_panics_the_call() {
    let desk = Desk::default();
    let stores = layers(2, &desk);
    let broken = Broken;
    let list: [&dyn DynStore; 2] = [&broken, &stores[1]];
    let tiers = Tiers::new(&list);

    let answer = catch_unwind(AssertUnwindSafe(|| poll_to_end(POLLS, tiers.get(11))));

    if let Ok(answer) = answer {
        panic!(
            "the first tier's lookup panicked, and `Tiers` answered {answer:?} (tier 1 was \
             asked: {:?}): it caught the panic and took it for a miss. A panic is a bug in \
             that tier, not an answer, and `Tiers` cannot know what state the tier is left \
             in; let the panic reach the caller (as the starter does): no catch_unwind",
            desk.asked.borrow()
        );
    }
}

#[test]
fn no_tiers_answer_none() {
    let layers: [&dyn DynStore; 0] = [];
    let tiers = Tiers::new(&layers);

    let answer = catch_unwind(AssertUnwindSafe(|| poll_to_end(POLLS, tiers.get(1))));
    let answer = answer.unwrap_or_else(|_| {
        panic!(
            "`get` on a `Tiers` with no tiers panicked (its message is above): an empty \
             list is a configuration like any other (no store at all), and it knows no \
             key, so every lookup answers None"
        )
    });
    assert_eq!(answer, None, "a `Tiers` with no tiers knows no key");
    assert_eq!(poll_to_end(POLLS, total(&tiers, &[1, 2])), 0);
}

#[test]
fn tiers_borrow_their_list() {
    let gauge = Gauge::new();
    let near = cache(&[(1, 10)], &gauge);
    let layers: [&dyn DynStore; 1] = [&near];

    let (tiers, allocations) = allocations_during(|| Tiers::new(&layers));

    assert_eq!(
        allocations, 0,
        "`Tiers::new` allocated {allocations} times: it copied the list of tiers it was \
         lent (into an Rc, an Arc or a Vec?). The caller's slice outlives the `Tiers` (its \
         lifetime says so), so borrow it: a copy costs an allocation and buys nothing"
    );
    assert_eq!(poll_to_end(POLLS, tiers.get(1)), Some(10));
}

// ANCHOR: owned
#[test]
fn owned_stores_are_called_and_dropped_in_one_scope() {
    let gauge = Gauge::new();
    // Stores chosen at run time and owned by the service: boxes in a `Vec`. They borrow
    // the gauge, so they are `dyn DynStore + '_`, not `'static`.
    let stores: Vec<Box<dyn DynStore + '_>> = vec![
        Box::new(cache(&[(1, 10)], &gauge)),
        Box::new(cache(&[(2, 20)], &gauge)),
    ];
    // If this test does not compile ("`stores` does not live long enough ... borrowed
    // value does not live long enough", E0597), the box's lifetime is a parameter of the
    // trait (`DynStore<'a>` with `get_dyn(&'a self)`): a call then borrows the store for
    // the trait's lifetime, which is as long as the store itself exists, so an owned
    // store can no longer be dropped after a call. The lifetime belongs to the method:
    // each call borrows the store for that call only.
    assert_eq!(poll_to_end(POLLS, stores[1].get_dyn(2)), Some(20));
    let layers: Vec<&dyn DynStore> = stores.iter().map(|store| &**store).collect();
    let tiers = Tiers::new(&layers);
    assert_eq!(poll_to_end(POLLS, total(&tiers, &[1, 2, 3])), 30);
    assert_eq!(gauge.now(), 0);
    // `stores` is dropped here, at the end of the scope that called it.
}
// ANCHOR_END: owned
