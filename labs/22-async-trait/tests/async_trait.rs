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
fn a_stored_zero_is_an_answer() {
    let gauge = Gauge::new();
    let near = cache(&[(5, 0)], &gauge);
    let far = cache(&[(5, 50)], &gauge);
    let layers: [&dyn DynStore; 2] = [&near, &far];
    let tiers = Tiers::new(&layers);

    assert_eq!(
        poll_to_end(POLLS, tiers.get(5)),
        Some(0),
        "the first tier stores 0 under key 5, so `Tiers` must answer Some(0): 0 is a \
         value like any other, and only None means a tier does not know the key (was the \
         answer turned into a number with unwrap_or(0) and 0 taken for a miss?)"
    );
    assert_eq!(
        far.lookups.get(),
        0,
        "the first tier answered Some(0), yet the second tier was asked too: a tier that \
         knows the key ends the search, whatever the value"
    );
}

#[test]
fn a_changed_value_is_seen_on_the_next_call() {
    let gauge = Gauge::new();
    let near = cache(&[(1, 10)], &gauge);
    let layers: [&dyn DynStore; 1] = [&near];
    let tiers = Tiers::new(&layers);

    assert_eq!(poll_to_end(POLLS, tiers.get(1)), Some(10));
    near.entries.borrow_mut().insert(1, 11);
    assert_eq!(
        poll_to_end(POLLS, tiers.get(1)),
        Some(11),
        "the store's value for key 1 changed from 10 to 11 between two calls, and the \
         second call still answered the old value: `Tiers` answered from a memory of its \
         own instead of asking the stores. Keeping answers is a cache's job, and a cache \
         is one of the tiers; `Tiers` asks them on every call"
    );
    assert_eq!(near.lookups.get(), 2, "each call asks the store");
}

#[test]
fn a_key_added_after_a_miss_is_found() {
    let gauge = Gauge::new();
    let near = cache(&[(1, 10)], &gauge);
    let layers: [&dyn DynStore; 1] = [&near];
    let tiers = Tiers::new(&layers);

    assert_eq!(poll_to_end(POLLS, tiers.get(2)), None, "nobody knows 2 yet");
    near.entries.borrow_mut().insert(2, 20);
    assert_eq!(
        poll_to_end(POLLS, tiers.get(2)),
        Some(20),
        "key 2 was added to the store after a call that missed it, and the next call still \
         answered None: `Tiers` remembered the miss instead of asking the stores again. A \
         miss is true only at the moment it is answered; `Tiers` asks the stores on every \
         call"
    );
    assert_eq!(near.lookups.get(), 2, "each call asks the store");
}

#[test]
fn every_tier_is_asked_in_order() {
    let gauge = Gauge::new();
    let first = cache(&[(1, 1)], &gauge);
    let second = cache(&[(2, 2)], &gauge);
    let third = cache(&[(3, 3)], &gauge);
    let fourth = cache(&[(4, 4)], &gauge);
    let layers: [&dyn DynStore; 4] = [&first, &second, &third, &fourth];
    let tiers = Tiers::new(&layers);

    for (key, which) in [(1, "first"), (2, "second"), (3, "third"), (4, "fourth")] {
        assert_eq!(
            poll_to_end(POLLS, tiers.get(key)),
            Some(u64::from(key)),
            "of four tiers, only the {which} knows key {key}, and `Tiers` did not find it: \
             a tier was skipped. `Tiers` is a list of any length, not a cache and a \
             database: it asks each tier in order until one knows the key"
        );
    }
    assert_eq!(poll_to_end(POLLS, tiers.get(5)), None, "nobody knows 5");
    assert_eq!(
        [&first, &second, &third, &fourth].map(|tier| tier.lookups.get()),
        [5, 4, 3, 2],
        "lookups per tier for keys 1 to 5: each key asks the tiers in order and stops at \
         the first that knows it"
    );
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
