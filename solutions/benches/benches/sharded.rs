//! Chapter 20's benchmark: the same key-value operations three ways, on the same threads.
//!
//! - `sharded`: lab 20's store (`sharded_store::run`), one shard per thread, each with its
//!   own `LocalRuntime` and partition; a call for another shard's key is a message. Also
//!   `sharded-local` (every call for a key the caller's shard owns: the fast path only)
//!   and `sharded-remote` (every call for a key another shard owns: a hop each).
//! - `mutex`: one `Mutex<HashMap>` shared by tasks on tokio's multi-thread runtime.
//! - `dashmap`: a `DashMap` (one `RwLock` per internal shard) shared the same way.
//! - `mutex-local`: the same `Mutex<HashMap>`, called from threads set up exactly like
//!   the shards' (a `LocalRuntime` each, the clients in a `FuturesUnordered`): only the
//!   way a call reaches the data differs from `sharded`.
//!
//! Every variant runs `CLIENTS` clients per thread, each a closed loop: pick a key
//! (uniformly, or Zipf-skewed), do one operation (a get, or one time in ten a put), record
//! how long that call took, then yield (the rest of a request's work). Printed: one JSON
//! line with ops/s and per-operation percentiles.
//!
//! `sharded hop BATCH` measures the cost model's other input: clients on one thread send
//! requests of BATCH gets each to an owner thread, as lab 20's store does with one.
//! `sharded overload wait|shed` overloads one owner through a small queue, waiting for
//! room or shedding (see `overload`).
//! `sharded shares` prints, for 2 to 64 shards, the share of calls the busiest shard gets
//! under each key distribution (hashing with lab 20's `shard_for`).
//!
//! Run it through `scripts/bench sharded`, which rotates the variants over rounds and
//! writes the data the page charts.
#![expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the baselines are the shared-lock designs this chapter compares against"
)]

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use sharded_store::{Config, Partition, Store, run, shard_for};
use tokio::runtime::{Builder, LocalRuntime};
use tokio::sync::{mpsc, oneshot};
use tokio::task::yield_now;

/// Keys in the store; every key is there before the clock starts.
const KEYS: usize = 100_000;
/// Concurrent clients per thread (connections, say).
const CLIENTS: usize = 16;
/// Zipf exponent of the skewed distribution (YCSB's default constant is 0.99).
const ZIPF_S: f64 = 0.99;

/// The keys and how to pick one.
struct Keys {
    names: Vec<String>,
    /// The cumulative Zipf distribution over the keys, rank 0 most popular.
    zipf: Option<Vec<f64>>,
}

impl Keys {
    fn new(skewed: bool) -> Keys {
        let names = (0..KEYS).map(|i| format!("key-{i}")).collect();
        let zipf = skewed.then(|| {
            let weights: Vec<f64> = (1..=KEYS).map(|r| 1.0 / (r as f64).powf(ZIPF_S)).collect();
            let total: f64 = weights.iter().sum();
            let mut acc = 0.0;
            weights
                .iter()
                .map(|w| {
                    acc += w / total;
                    acc
                })
                .collect()
        });
        Keys { names, zipf }
    }

    fn pick(&self, rng: &mut Rng) -> usize {
        match &self.zipf {
            None => (rng.next() % KEYS as u64) as usize,
            Some(cdf) => {
                let u = rng.unit();
                cdf.partition_point(|&p| p < u).min(KEYS - 1)
            }
        }
    }
}

/// xorshift64*: fast, deterministic per seed, and no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Busy-waits for `work`: the CPU cost of an operation beyond the map lookup (parsing,
/// checking, updating an index…), spent where the data is: under the lock, or on the
/// owner's thread.
fn spin(work: Duration) {
    if work.is_zero() {
        return;
    }
    let end = Instant::now() + work;
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

/// The sharded store's partition for this benchmark: a map, and `work` per operation.
struct Worked {
    map: HashMap<String, String>,
    work: Duration,
}

impl Partition for Worked {
    fn get(&self, key: &str) -> Option<String> {
        spin(self.work);
        self.map.get(key).cloned()
    }
    fn put(&mut self, key: String, value: String) -> Option<String> {
        spin(self.work);
        self.map.insert(key, value)
    }
    fn len(&self) -> usize {
        self.map.len()
    }
}

/// Which keys a sharded client may pick, relative to its own shard.
#[derive(Clone, Copy, PartialEq)]
enum Locality {
    Any,
    Local,
    Remote,
}

/// What one thread's clients measured.
struct Sample {
    started: Instant,
    ended: Instant,
    get_ns: Vec<u32>,
    put_ns: Vec<u32>,
}

fn elapsed_ns(t: Instant) -> u32 {
    t.elapsed().as_nanos().min(u32::MAX as u128) as u32
}

/// One client: `ops` calls, each timed, each followed by a yield.
async fn client<G, P, GF, PF>(
    seed: u64,
    ops: usize,
    keys: &Keys,
    accept: impl Fn(usize) -> bool,
    get: G,
    put: P,
) -> (Vec<u32>, Vec<u32>)
where
    G: Fn(usize) -> GF,
    GF: Future<Output = Option<String>>,
    P: Fn(usize) -> PF,
    PF: Future<Output = Option<String>>,
{
    let mut rng = Rng(seed | 1);
    let (mut gets, mut puts) = (Vec::with_capacity(ops), Vec::with_capacity(ops / 8));
    for _ in 0..ops {
        let mut key = keys.pick(&mut rng);
        while !accept(key) {
            key = keys.pick(&mut rng);
        }
        let is_put = rng.next().is_multiple_of(10);
        let start = Instant::now();
        if is_put {
            black_box(put(key).await);
            puts.push(elapsed_ns(start));
        } else {
            black_box(get(key).await);
            gets.push(elapsed_ns(start));
        }
        yield_now().await;
    }
    (gets, puts)
}

fn sharded(
    threads: usize,
    ops: usize,
    keys: &Keys,
    locality: Locality,
    work: Duration,
) -> Vec<Sample> {
    let owners: Vec<usize> = keys.names.iter().map(|k| shard_for(k, threads)).collect();
    let ready = Barrier::new(threads);
    let config = Config {
        shards: threads,
        queue: 4 * CLIENTS * threads,
    };
    let (owners, ready) = (&owners, &ready);
    let make = |shard: usize| {
        let mine = keys.names.iter().zip(owners).filter(|&(_, &o)| o == shard);
        let map = mine
            .map(|(k, _)| (k.clone(), "initial".to_owned()))
            .collect();
        Worked { map, work }
    };
    let app = move |store: Store<Worked>| async move {
        let me = store.shard();
        let accept = move |key: usize| match locality {
            Locality::Any => true,
            Locality::Local => owners[key] == me,
            Locality::Remote => owners[key] != me,
        };
        ready.wait(); // every partition built, every thread here: start together
        let started = Instant::now();
        let store = &store;
        // The clients in a FuturesUnordered: a wake-up polls only the client it is for.
        let clients: futures::stream::FuturesUnordered<_> =
            (0..CLIENTS)
                .map(|c| {
                    let seed = (me * CLIENTS + c) as u64 * 0x9E37_79B9_7F4A_7C15;
                    client(
                        seed,
                        ops,
                        keys,
                        accept,
                        move |key| async move {
                            store.get(&keys.names[key]).await.expect("a get failed")
                        },
                        move |key| async move {
                            store
                                .put(&keys.names[key], "new")
                                .await
                                .expect("a put failed")
                        },
                    )
                })
                .collect();
        let results: Vec<_> = futures::StreamExt::collect(clients).await;
        let ended = Instant::now();
        let (mut get_ns, mut put_ns) = (Vec::new(), Vec::new());
        for (g, p) in results {
            get_ns.extend(g);
            put_ns.extend(p);
        }
        Sample {
            started,
            ended,
            get_ns,
            put_ns,
        }
    };
    run(&config, make, app).expect("the sharded store failed")
}

/// A shared map on tokio's work-stealing runtime: `CLIENTS` tasks per worker thread.
fn shared<M: Send + Sync + 'static>(
    threads: usize,
    ops: usize,
    keys: Arc<Keys>,
    map: Arc<M>,
    get: fn(&M, &str, Duration) -> Option<String>,
    put: fn(&M, &str, Duration) -> Option<String>,
    work: Duration,
) -> Vec<Sample> {
    let runtime = Builder::new_multi_thread()
        .worker_threads(threads)
        .build()
        .unwrap();
    let tasks = threads * CLIENTS;
    let started = Instant::now();
    let results = runtime.block_on(async {
        let handles: Vec<_> = (0..tasks)
            .map(|c| {
                let (keys, map) = (Arc::clone(&keys), Arc::clone(&map));
                tokio::spawn(async move {
                    let seed = c as u64 * 0x9E37_79B9_7F4A_7C15;
                    let (k, m) = (&*keys, &*map);
                    client(
                        seed,
                        ops,
                        k,
                        |_| true,
                        |key| std::future::ready(get(m, &k.names[key], work)),
                        |key| std::future::ready(put(m, &k.names[key], work)),
                    )
                    .await
                })
            })
            .collect();
        let mut results = Vec::new();
        for handle in handles {
            results.push(handle.await.unwrap());
        }
        results
    });
    let ended = Instant::now();
    let (mut get_ns, mut put_ns) = (Vec::new(), Vec::new());
    for (g, p) in results {
        get_ns.extend(g);
        put_ns.extend(p);
    }
    vec![Sample {
        started,
        ended,
        get_ns,
        put_ns,
    }]
}

/// A shared map used from the same threads as the shards: one `LocalRuntime` per thread,
/// its `CLIENTS` clients in a `FuturesUnordered`, exactly as the sharded store runs them.
/// What differs from `sharded` is only how a call reaches the data.
fn shared_local<M: Sync>(
    threads: usize,
    ops: usize,
    keys: &Keys,
    map: &M,
    get: fn(&M, &str, Duration) -> Option<String>,
    put: fn(&M, &str, Duration) -> Option<String>,
    work: Duration,
) -> Vec<Sample> {
    let ready = Barrier::new(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|me| {
                let ready = &ready;
                s.spawn(move || {
                    let runtime = LocalRuntime::new().unwrap();
                    ready.wait();
                    runtime.block_on(async {
                        let started = Instant::now();
                        let clients: futures::stream::FuturesUnordered<_> = (0..CLIENTS)
                            .map(|c| {
                                let seed = (me * CLIENTS + c) as u64 * 0x9E37_79B9_7F4A_7C15;
                                client(
                                    seed,
                                    ops,
                                    keys,
                                    |_| true,
                                    move |key| std::future::ready(get(map, &keys.names[key], work)),
                                    move |key| std::future::ready(put(map, &keys.names[key], work)),
                                )
                            })
                            .collect();
                        let results: Vec<_> = futures::StreamExt::collect(clients).await;
                        let ended = Instant::now();
                        let (mut get_ns, mut put_ns) = (Vec::new(), Vec::new());
                        for (g, p) in results {
                            get_ns.extend(g);
                            put_ns.extend(p);
                        }
                        Sample {
                            started,
                            ended,
                            get_ns,
                            put_ns,
                        }
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

// The work is spent holding the lock: it is work on the shared data.
fn mutex_get(map: &Mutex<HashMap<String, String>>, key: &str, work: Duration) -> Option<String> {
    let map = map.lock().unwrap();
    spin(work);
    map.get(key).cloned()
}
fn mutex_put(map: &Mutex<HashMap<String, String>>, key: &str, work: Duration) -> Option<String> {
    let mut map = map.lock().unwrap();
    spin(work);
    map.insert(key.to_owned(), "new".to_owned())
}
fn dash_get(map: &DashMap<String, String>, key: &str, work: Duration) -> Option<String> {
    let value = map.get(key)?; // holds the key's internal shard, read-locked
    spin(work);
    Some(value.clone())
}
fn dash_put(map: &DashMap<String, String>, key: &str, work: Duration) -> Option<String> {
    let mut entry = map.entry(key.to_owned()).or_default(); // the shard, write-locked
    spin(work);
    Some(std::mem::replace(entry.value_mut(), "new".to_owned()))
}

/// The mutex's serial section, uncontended: one thread, a tight loop of gets.
fn serial(ops: usize) {
    let keys = Keys::new(false);
    let map = Mutex::new(
        keys.names
            .iter()
            .map(|k| (k.clone(), "initial".to_owned()))
            .collect(),
    );
    let mut rng = Rng(7);
    let start = Instant::now();
    for _ in 0..ops {
        black_box(mutex_get(
            &map,
            &keys.names[keys.pick(&mut rng)],
            Duration::ZERO,
        ));
    }
    let ns = start.elapsed().as_nanos() as f64 / ops as f64;
    println!("{{\"variant\": \"serial\", \"ops\": {ops}, \"ns_per_op\": {ns:.1}}}");
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64
}

fn report(variant: &str, skewed: bool, work: Duration, threads: usize, samples: Vec<Sample>) {
    let start = samples.iter().map(|s| s.started).min().unwrap();
    let end = samples.iter().map(|s| s.ended).max().unwrap();
    let secs = (end - start).as_secs_f64();
    let mut gets: Vec<u32> = samples
        .iter()
        .flat_map(|s| s.get_ns.iter().copied())
        .collect();
    let mut puts: Vec<u32> = samples
        .iter()
        .flat_map(|s| s.put_ns.iter().copied())
        .collect();
    gets.sort_unstable();
    puts.sort_unstable();
    let ops = gets.len() + puts.len();
    println!(
        "{{\"variant\": \"{variant}\", \"keys\": \"{}\", \"work_ns\": {}, \"threads\": {threads}, \"clients_per_thread\": {CLIENTS}, \
         \"ops\": {ops}, \"secs\": {secs:.6}, \"ops_per_sec\": {:.0}, \
         \"get_p50_ns\": {:.0}, \"get_p99_ns\": {:.0}, \"put_p50_ns\": {:.0}, \"put_p99_ns\": {:.0}}}",
        if skewed { "zipf" } else { "uniform" },
        work.as_nanos(),
        ops as f64 / secs,
        percentile(&gets, 0.5),
        percentile(&gets, 0.99),
        percentile(&puts, 0.5),
        percentile(&puts, 0.99),
    );
}

/// A full queue, waited on or shed: 64 callers on one thread keep calling an owner thread
/// that spends 2 µs on each call, through a queue of 16. `wait` sends with `send().await`
/// and every call is served; `shed` uses `try_send`, and a refused call is answered at
/// once (a 503) and the caller goes on to its next call. Prints the share refused and the
/// p50 and p99 of the served calls, each timed from the moment it was offered.
fn overload(shed: bool, ops: usize) {
    const CALLERS: usize = 64;
    const QUEUE: usize = 16;
    const WORK: Duration = Duration::from_micros(2);
    struct Call {
        key: u32,
        reply: oneshot::Sender<u64>,
    }
    let (queue, mut inbox) = mpsc::channel::<Call>(QUEUE);
    let owner = std::thread::spawn(move || {
        LocalRuntime::new().unwrap().block_on(async {
            while let Some(Call { key, reply }) = inbox.recv().await {
                spin(WORK);
                let _ = reply.send(key as u64);
            }
        });
    });
    let per_caller = (ops / CALLERS).max(1);
    let runtime = LocalRuntime::new().unwrap();
    let (mut served, refused) = runtime.block_on(async {
        let queue = &queue;
        let callers: futures::stream::FuturesUnordered<_> = (0..CALLERS)
            .map(|c| async move {
                let (mut served, mut refused) = (Vec::new(), 0u64);
                for i in 0..per_caller {
                    let (reply, answer) = oneshot::channel();
                    let call = Call {
                        key: (c * per_caller + i) as u32,
                        reply,
                    };
                    let offered = Instant::now();
                    if shed {
                        if queue.try_send(call).is_err() {
                            refused += 1; // answered at once: 503, try later
                            yield_now().await;
                            continue;
                        }
                    } else {
                        queue
                            .send(call)
                            .await
                            .unwrap_or_else(|_| panic!("the owner is there"));
                    }
                    black_box(answer.await.expect("the owner answers"));
                    served.push(elapsed_ns(offered));
                }
                (served, refused)
            })
            .collect();
        let all: Vec<_> = futures::StreamExt::collect(callers).await;
        let served: Vec<u32> = all.iter().flat_map(|(s, _)| s.iter().copied()).collect();
        (served, all.iter().map(|(_, r)| r).sum::<u64>())
    });
    drop(queue);
    owner.join().unwrap();
    served.sort_unstable();
    let offered = served.len() as u64 + refused;
    println!(
        "{{\"variant\": \"overload\", \"policy\": \"{}\", \"offered\": {offered}, \"refused_share\": {:.4}, \
         \"served_p50_ns\": {:.0}, \"served_p99_ns\": {:.0}}}",
        if shed { "shed" } else { "wait" },
        refused as f64 / offered as f64,
        percentile(&served, 0.5),
        percentile(&served, 0.99),
    );
}

/// The hop: clients on one thread send requests of `batch` gets each to an owner thread
/// (a bounded queue there, a oneshot back), `CLIENTS` requests in flight. Prints the
/// calls per second and the round trip of one request.
fn hop(batch: usize, ops: usize) {
    struct Batch {
        keys: Vec<u32>,
        reply: oneshot::Sender<u64>,
    }
    let (queue, mut inbox) = mpsc::channel::<Batch>(CLIENTS * 4);
    let owner = std::thread::spawn(move || {
        let partition: HashMap<u32, u64> = (0..KEYS as u32).map(|k| (k, k as u64)).collect();
        LocalRuntime::new().unwrap().block_on(async {
            while let Some(Batch { keys, reply }) = inbox.recv().await {
                let _ = reply.send(keys.iter().map(|k| partition[k]).sum());
            }
        });
    });
    let requests = ops / batch;
    let runtime = LocalRuntime::new().unwrap();
    let (secs, mut trips) = runtime.block_on(async {
        let started = Instant::now();
        let queue = &queue;
        let clients: futures::stream::FuturesUnordered<_> = (0..CLIENTS)
            .map(|c| async move {
                let mut rng = Rng((c as u64 + 1) * 0x9E37_79B9_7F4A_7C15);
                let mut trips = Vec::with_capacity(requests);
                for _ in 0..requests {
                    let keys = (0..batch)
                        .map(|_| (rng.next() % KEYS as u64) as u32)
                        .collect();
                    let start = Instant::now();
                    let (reply, answer) = oneshot::channel();
                    queue
                        .send(Batch { keys, reply })
                        .await
                        .unwrap_or_else(|_| panic!("the owner is there"));
                    black_box(answer.await.expect("the owner answers"));
                    trips.push(elapsed_ns(start));
                }
                trips
            })
            .collect();
        let all: Vec<Vec<u32>> = futures::StreamExt::collect(clients).await;
        (
            started.elapsed().as_secs_f64(),
            all.into_iter().flatten().collect::<Vec<u32>>(),
        )
    });
    drop(queue);
    owner.join().unwrap();
    trips.sort_unstable();
    let calls = (trips.len() * batch) as f64;
    println!(
        "{{\"variant\": \"hop\", \"batch\": {batch}, \"calls\": {calls}, \"secs\": {secs:.6}, \
         \"calls_per_sec\": {:.0}, \"trip_p50_ns\": {:.0}, \"trip_p99_ns\": {:.0}}}",
        calls / secs,
        percentile(&trips, 0.5),
        percentile(&trips, 0.99),
    );
}

/// For 2 to 64 shards: the share of calls the busiest shard gets, uniform and Zipf.
fn shares() {
    for skewed in [false, true] {
        let keys = Keys::new(skewed);
        let p: Vec<f64> = match &keys.zipf {
            None => vec![1.0 / KEYS as f64; KEYS],
            Some(cdf) => cdf
                .iter()
                .scan(0.0, |prev, &c| {
                    let p = c - *prev;
                    *prev = c;
                    Some(p)
                })
                .collect(),
        };
        for shards in [2, 8, 16, 64] {
            let mut load = vec![0.0; shards];
            for (name, p) in keys.names.iter().zip(&p) {
                load[shard_for(name, shards)] += p;
            }
            let busiest = load.iter().cloned().fold(0.0, f64::max);
            println!(
                "{{\"variant\": \"shares\", \"keys\": \"{}\", \"shards\": {shards}, \"busiest\": {busiest:.6}, \"hottest_key\": {:.6}}}",
                if skewed { "zipf" } else { "uniform" },
                p[0]
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(64);
    let ops: usize = std::env::var("SHARDED_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    match arg(0) {
        "hop" => hop(arg(1).parse().expect("hop BATCH"), ops * CLIENTS),
        "overload" => overload(arg(1) == "shed", ops * CLIENTS),
        "shares" => shares(),
        "serial" => serial(ops * CLIENTS * 4),
        variant => {
            let skewed = match arg(1) {
                "uniform" => false,
                "zipf" => true,
                other => panic!("keys: uniform or zipf, not {other:?}"),
            };
            let work = Duration::from_nanos(arg(2).parse().unwrap_or(0));
            let keys = Keys::new(skewed);
            let samples = match variant {
                "sharded" => sharded(threads, ops, &keys, Locality::Any, work),
                "sharded-local" => sharded(threads, ops, &keys, Locality::Local, work),
                "sharded-remote" => sharded(threads, ops, &keys, Locality::Remote, work),
                "mutex-local" => {
                    let map: HashMap<String, String> = keys
                        .names
                        .iter()
                        .map(|k| (k.clone(), "initial".to_owned()))
                        .collect();
                    let map = Mutex::new(map);
                    shared_local(threads, ops, &keys, &map, mutex_get, mutex_put, work)
                }
                "mutex" => {
                    let map: HashMap<String, String> = keys
                        .names
                        .iter()
                        .map(|k| (k.clone(), "initial".to_owned()))
                        .collect();
                    shared(
                        threads,
                        ops,
                        Arc::new(keys),
                        Arc::new(Mutex::new(map)),
                        mutex_get,
                        mutex_put,
                        work,
                    )
                }
                "dashmap" => {
                    let map: DashMap<String, String> = keys
                        .names
                        .iter()
                        .map(|k| (k.clone(), "initial".to_owned()))
                        .collect();
                    shared(
                        threads,
                        ops,
                        Arc::new(keys),
                        Arc::new(map),
                        dash_get,
                        dash_put,
                        work,
                    )
                }
                other => panic!("unknown variant {other:?}"),
            };
            report(variant, skewed, work, threads, samples);
        }
    }
}
