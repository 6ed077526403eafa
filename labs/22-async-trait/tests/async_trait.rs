//! Lab 22's tests. The stores here are what a single-threaded service has: a cache that
//! keeps its entries in an `Rc<RefCell<_>>` and counts in a `Cell` (neither `Send` nor
//! `Sync`), and a database that borrows its table from the test (not `'static`). Both
//! are used through generics (`total`) and through `dyn` (`Tiers`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use async_trait_lab::{DynStore, Store, Tiers, total};
use lab_support::Gauge;
use lab_support::alloc::{CountingAllocator, allocations_during};
use lab_support::{paused, poll_once, poll_to_end, yield_once};

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

    let (sum, allocations) = allocations_during(|| poll_to_end(POLLS, total(&tiers, &keys)));

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

        // Two calls borrow the same `&db` at once: no lock, no clone, no `Arc`.
        let (one, two) = tokio::join!(tiers.get(1), tiers.get(2));

        assert_eq!((one, two), (Some(100), Some(200)));
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(10),
            "the two lookups overlap"
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
