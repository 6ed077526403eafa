//! Lab 18: balancing, simulated. N cores serve requests made of awaited steps, in
//! virtual time, under two policies: per connection (thread-per-core) and per step
//! (work-stealing). No threads, no clocks: the same input gives the same numbers.
//!
//! Your part is `Policy::pick`, right below. Everything in `mod simulator`, after it, is
//! given: read `simulate` to see when `pick` is called, and `RunQueue` for what `pick` can
//! do with a queue. Leave the simulator as it is: the tests pin its exact results, and
//! `cargo labs check` compares the given code (the anchored regions named given…) with
//! the starter's. Keep any helper of yours private: the public API is fixed.

// ANCHOR: given_exports (given code: keep it as it is; `cargo labs check` compares it)
pub use simulator::{
    Load, Micros, Policy, Ready, Report, Run, RunQueue, mix, simulate, skewed, uniform,
};
// ANCHOR_END: given_exports

// ANCHOR: starter (the book quotes the code from here to the ANCHOR_END line)
impl Policy {
    /// The step that idle core `core` runs next, taken out of `queues` (one queue per
    /// core, each oldest first), or `None` if the core stays idle.
    pub fn pick(self, core: usize, queues: &mut [RunQueue]) -> Option<Ready> {
        match self {
            // A connection's steps stay on its core: a core runs its own queue, oldest
            // step first, and stays idle when that queue is empty.
            Policy::PerConnection => queues[core].pop_front(),
            // TODO: when its own queue is empty, an idle core takes the step that has
            // waited longest from any other core's queue. For now: as PerConnection.
            Policy::WorkStealing => queues[core].pop_front(),
        }
    }
}
// ANCHOR_END: starter

// ANCHOR: given_simulator (given code: keep it as it is; `cargo labs check` compares it)
/// The simulator, given. `pick` is the only code of yours it calls. The tests pin its
/// results exactly (a p99, a count of idle microseconds, a migration), so a change here
/// shows up as a failing test, however green the rest looks.
mod simulator {
    use std::cell::Cell;
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, VecDeque};
    use std::fmt;

    /// Virtual time, in microseconds.
    pub type Micros = u64;

    // ANCHOR: types (the book quotes the code from here to the ANCHOR_END line)
    /// How the cores share the work.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Policy {
        /// Thread-per-core: a connection is given to one core when it opens, and every step
        /// of every request on it runs on that core.
        PerConnection,
        /// Work-stealing: at every `.await`, the next step may run on any core; a core whose
        /// own queue is empty takes a step from another core's queue.
        WorkStealing,
    }

    /// A step that is ready to run, waiting in a core's queue.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Ready {
        /// When the step became ready, as a count: a smaller `seq` has waited longer. Every
        /// step of a run has its own `seq`, so two steps are never equally old.
        pub seq: u64,
        /// The connection whose request this step belongs to.
        pub conn: usize,
    }
    // ANCHOR_END: types

    // ANCHOR: run_queue (the book quotes the code from here to the ANCHOR_END line)
    /// One core's queue of ready steps, oldest first. It works like a `VecDeque<Ready>`,
    /// and counts each call made on it during one call of `pick` (every method but `looks`
    /// is one look), so the tests can tell a thief that reads each queue once from one
    /// that keeps re-reading them. The count starts from 0 at every call of `pick`: it
    /// tells nothing about earlier calls, so a run and a test look alike to `pick`. A pick
    /// that looks at one queue more than `SPINNING` times in a single call is stopped with
    /// a panic: it is spinning, and would never return. A queue cannot be cloned (a copy
    /// would be read without a look), and printing one (`{:?}`, `dbg!`) is a look too.
    #[derive(Default)]
    pub struct RunQueue {
        steps: VecDeque<Ready>,
        /// Looks since the simulator last called `pick` (or since the queue was built).
        looks: Cell<u64>,
    }

    /// More looks at one queue than any search needs in one call of `pick`.
    const SPINNING: u64 = 100;

    impl RunQueue {
        /// The oldest step, left in the queue.
        pub fn front(&self) -> Option<&Ready> {
            self.look();
            self.steps.front()
        }

        /// The newest step, left in the queue.
        pub fn back(&self) -> Option<&Ready> {
            self.look();
            self.steps.back()
        }

        /// Takes the oldest step out.
        pub fn pop_front(&mut self) -> Option<Ready> {
            self.look();
            self.steps.pop_front()
        }

        /// Takes the newest step out.
        pub fn pop_back(&mut self) -> Option<Ready> {
            self.look();
            self.steps.pop_back()
        }

        /// Puts a step at the back, as the newest.
        pub fn push_back(&mut self, step: Ready) {
            self.look();
            self.steps.push_back(step);
        }

        /// How many steps wait here.
        pub fn len(&self) -> usize {
            self.look();
            self.steps.len()
        }

        pub fn is_empty(&self) -> bool {
            self.look();
            self.steps.is_empty()
        }

        /// The steps, oldest first: one look, however many of them you read.
        pub fn iter(&self) -> impl Iterator<Item = &Ready> {
            self.look();
            self.steps.iter()
        }

        /// How many looks this queue has counted in the current call of `pick` (asking is
        /// not a look): 0 when a call begins.
        pub fn looks(&self) -> u64 {
            self.looks.get()
        }

        fn look(&self) {
            self.looks.set(self.looks.get() + 1);
            assert!(
                self.looks.get() <= SPINNING,
                "pick looked at one queue {SPINNING} times in a single call: it is spinning. \
                 Nothing changes while pick runs (no other core runs during the call), so \
                 look at each queue once or twice, and return None when there is nothing \
                 to take: the simulator asks again after the next event"
            );
        }
    }

    impl fmt::Debug for RunQueue {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.look();
            f.debug_list().entries(&self.steps).finish()
        }
    }

    impl FromIterator<Ready> for RunQueue {
        fn from_iter<I: IntoIterator<Item = Ready>>(steps: I) -> Self {
            RunQueue {
                steps: steps.into_iter().collect(),
                ..RunQueue::default()
            }
        }
    }
    // ANCHOR_END: run_queue

    // ANCHOR: model (the book quotes the code from here to the ANCHOR_END line)
    /// The load: `connections` clients, each sending one request, waiting for its
    /// response, then `gap` later sending the next (a closed loop, like `wrk`), for
    /// `duration`.
    #[derive(Clone, Debug)]
    pub struct Load {
        pub cores: usize,
        pub connections: usize,
        /// From a response to the next request on the same connection: network and client.
        pub gap: Micros,
        /// Virtual time the run lasts; requests that end by then are counted.
        pub duration: Micros,
        /// Keep every step's [`Run`] in the report (tests do; long runs don't need to).
        pub trace: bool,
    }

    /// What one run measured.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct Report {
        /// Requests that ended by `duration`.
        pub completed: u64,
        /// Requests per second of virtual time: `completed * 1_000_000 / duration`.
        pub throughput: u64,
        /// Latency of each completed request (arrival to last step's end), sorted.
        pub latencies: Vec<Micros>,
        /// Steps that ran on another core than their request's previous step.
        pub migrations: u64,
        /// Core-microseconds during which a core sat idle while a step waited in a queue.
        pub idle_while_waiting: Micros,
        /// How many times the simulator called `pick`.
        pub picks: u64,
        /// How many times `pick` looked at a queue, in all (see [`RunQueue`]).
        pub looks: u64,
        /// Every step that ran, in the order they ended (empty unless `trace`).
        pub runs: Vec<Run>,
    }

    /// One step that ran.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Run {
        pub conn: usize,
        /// The request's number on its connection (0, 1, 2, …).
        pub request: u64,
        /// The step's number in its request (0 runs on arrival, 1 after the first
        /// `.await`, …).
        pub step: usize,
        pub core: usize,
        pub seq: u64,
        pub ready_at: Micros,
        pub start: Micros,
        pub end: Micros,
    }
    // ANCHOR_END: model

    impl Report {
        // ANCHOR: percentile (the book quotes the code from here to the ANCHOR_END line)
        /// The latency that `per_mille` thousandths of requests do not exceed (nearest
        /// rank): `percentile(500)` is the median, `percentile(990)` the p99.
        pub fn percentile(&self, per_mille: u64) -> Micros {
            let n = self.latencies.len() as u64;
            if n == 0 {
                return 0;
            }
            let rank = (per_mille * n).div_ceil(1000).max(1);
            self.latencies[(rank - 1) as usize]
        }
        // ANCHOR_END: percentile

        pub fn p50(&self) -> Micros {
            self.percentile(500)
        }

        pub fn p99(&self) -> Micros {
            self.percentile(990)
        }

        pub fn max(&self) -> Micros {
            self.latencies.last().copied().unwrap_or(0)
        }
    }

    /// A connection's state during a run.
    struct Conn {
        id: usize,
        /// The core that ran its latest step (at first: the core it was given, round-robin).
        core: usize,
        request: u64,
        steps: Vec<Micros>,
        step: usize,
        arrived: Micros,
        ready_at: Micros,
        /// The `seq` of its step waiting in a queue, if one is.
        waiting: Option<u64>,
    }

    impl Conn {
        /// The trace entry of its current step, run on `core` from `start`.
        fn run(&self, core: usize, seq: u64, start: Micros) -> Run {
            Run {
                conn: self.id,
                request: self.request,
                step: self.step,
                core,
                seq,
                ready_at: self.ready_at,
                start,
                end: start + self.steps[self.step],
            }
        }
    }

    /// What a core is running: (connection, the step's seq, when it started), or `None`.
    type Slot = Option<(usize, u64, Micros)>;

    // ANCHOR: simulate (the book quotes the code from here to the ANCHOR_END line)
    /// Runs `load` under `policy`. `work(conn, request)` gives the cost of each step of
    /// that request (at least one step, each at least 1 µs); it is called once per
    /// request, so both policies see the same work.
    pub fn simulate(
        policy: Policy,
        load: &Load,
        work: impl Fn(usize, u64) -> Vec<Micros>,
    ) -> Report {
        assert!(load.cores > 0, "a machine needs at least one core");
        let n = load.cores;
        let mut queues: Vec<RunQueue> = (0..n).map(|_| RunQueue::default()).collect();
        let mut running: Vec<Slot> = vec![None; n];
        let mut conns: Vec<Conn> = (0..load.connections)
            .map(|c| Conn {
                id: c,
                core: c % n,
                request: 0,
                steps: Vec::new(),
                step: 0,
                arrived: 0,
                ready_at: 0,
                waiting: None,
            })
            .collect();
        // Events: (time, 0 = a core finishes its step | 1 = a request arrives, core or conn).
        let mut events: BinaryHeap<Reverse<(Micros, u8, usize)>> =
            (0..load.connections).map(|c| Reverse((0, 1, c))).collect();
        let mut report = Report::default();
        let mut seq = 0;
        let mut ready = |conn: &mut Conn, c: usize, queues: &mut [RunQueue], now| {
            conn.ready_at = now;
            conn.waiting = Some(seq);
            queue_for(conn, queues)
                .steps
                .push_back(Ready { seq, conn: c });
            seq += 1;
        };

        while let Some(&Reverse((now, _, _))) = events.peek() {
            if over(now, load) {
                break;
            }
            // Everything that happens at `now`: steps end (core order), then requests arrive.
            while let Some(&Reverse((t, kind, id))) = events.peek() {
                if t != now {
                    break;
                }
                events.pop();
                if kind == 0 {
                    let (c, seq, start) = running[id].take().expect("a finishing core was running");
                    let conn = &mut conns[c];
                    if load.trace {
                        report.runs.push(conn.run(id, seq, start));
                    }
                    conn.step += 1;
                    if conn.step < conn.steps.len() {
                        // `.await` returned: the next step is ready.
                        ready(conn, c, &mut queues, now);
                    } else {
                        report.completed += 1;
                        report.latencies.push(now - conn.arrived);
                        conn.request += 1;
                        events.push(Reverse((now + load.gap, 1, c)));
                    }
                } else {
                    let conn = &mut conns[id];
                    conn.steps = work(id, conn.request);
                    assert!(
                        !conn.steps.is_empty() && conn.steps.iter().all(|&s| s > 0),
                        "a request needs at least one step, and every step at least 1 µs"
                    );
                    conn.step = 0;
                    conn.arrived = now;
                    ready(conn, id, &mut queues, now);
                }
            }
            // ANCHOR: dispatch (the book quotes the code from here to the ANCHOR_END line)
            // Idle cores ask `pick` what to run, in `dispatch_order`.
            for core in dispatch_order(&running, &queues) {
                let before: usize = queues.iter().map(|q| q.steps.len()).sum();
                report.picks += 1;
                let picked = policy.pick(core, &mut queues);
                // This call's looks, counted; each queue starts the next call from 0.
                let mut after = 0;
                for queue in &queues {
                    report.looks += queue.looks.replace(0);
                    after += queue.steps.len();
                }
                let Some(step) = picked else {
                    continue;
                };
                let conn = conns
                    .get_mut(step.conn)
                    .expect("pick returned an unknown connection");
                assert!(
                    after + 1 == before && conn.waiting == Some(step.seq),
                    "pick must take the step it returns out of the queues, and only that step"
                );
                conn.waiting = None;
                if conn.core != core {
                    report.migrations += 1;
                    conn.core = core;
                }
                running[core] = Some((step.conn, step.seq, now));
                events.push(Reverse((now + conn.steps[conn.step], 0, core)));
            }
            // ANCHOR_END: dispatch
            // Until the next event (or the end of the run), count idle cores' lost time.
            let next = events
                .peek()
                .map_or(load.duration, |e| e.0.0.min(load.duration));
            report.idle_while_waiting += idle_while_waiting(&running, &queues, now, next);
        }
        // Steps still running at the end belong to the trace too (they end after `duration`).
        for (core, slot) in running.iter().enumerate() {
            if let (Some((c, seq, start)), true) = (*slot, load.trace) {
                report.runs.push(conns[c].run(core, seq, start));
            }
        }
        report.latencies.sort_unstable();
        report.throughput = report.completed * 1_000_000 / load.duration.max(1);
        report
    }
    // ANCHOR_END: simulate

    // The model's rules, one function each. The chapter's numbers depend on every one.

    // ANCHOR: over (the book quotes the code from here to the ANCHOR_END line)
    /// Whether the run is over at `now`. Events at `duration` itself still happen, so a
    /// request that ends exactly then is counted.
    fn over(now: Micros, load: &Load) -> bool {
        now > load.duration
    }
    // ANCHOR_END: over

    // ANCHOR: queue_for (the book quotes the code from here to the ANCHOR_END line)
    /// The queue a step joins when it becomes ready: that of the core that ran its
    /// request's latest step (at first, the core its connection was given). A task woken
    /// on a tokio worker joins that worker's queue the same way: a stolen task stays.
    fn queue_for<'q>(conn: &Conn, queues: &'q mut [RunQueue]) -> &'q mut RunQueue {
        &mut queues[conn.core]
    }
    // ANCHOR_END: queue_for

    // ANCHOR: dispatch_order (the book quotes the code from here to the ANCHOR_END line)
    /// The idle cores, in the order they ask `pick`: first those with steps of their own
    /// (they run their own), then the others (they may steal), in core order within each.
    /// So a core never loses its own step to a thief that happened to ask first.
    fn dispatch_order(running: &[Slot], queues: &[RunQueue]) -> Vec<usize> {
        let idle = (0..running.len()).filter(|&c| running[c].is_none());
        let (own, rest): (Vec<usize>, Vec<usize>) =
            idle.partition(|&c| !queues[c].steps.is_empty());
        own.into_iter().chain(rest).collect()
    }
    // ANCHOR_END: dispatch_order

    // ANCHOR: idle (the book quotes the code from here to the ANCHOR_END line)
    /// The core-microseconds from `now` to `next` during which a core sat idle while a step
    /// waited: each waiting step could have had one idle core, so min(idle, waiting) cores.
    fn idle_while_waiting(
        running: &[Slot],
        queues: &[RunQueue],
        now: Micros,
        next: Micros,
    ) -> Micros {
        let idle = running.iter().filter(|r| r.is_none()).count() as u64;
        let waiting = queues.iter().map(|q| q.steps.len()).sum::<usize>() as u64;
        idle.min(waiting) * next.saturating_sub(now)
    }
    // ANCHOR_END: idle

    // ANCHOR: work (the book quotes the code from here to the ANCHOR_END line)
    /// Every request alike: a first step of `base` µs, then `awaits` steps of `step` µs,
    /// each after an `.await`.
    pub fn uniform(base: Micros, awaits: u64, step: Micros) -> impl Fn(usize, u64) -> Vec<Micros> {
        move |_, _| steps(base, awaits, step)
    }

    /// The seed's skewed handler: a first step of `base` µs, then 0 to `max_awaits` awaited
    /// steps of `step` µs, how many drawn for each request from `seed` (same seed, same
    /// work).
    pub fn skewed(
        seed: u64,
        base: Micros,
        max_awaits: u64,
        step: Micros,
    ) -> impl Fn(usize, u64) -> Vec<Micros> {
        move |conn, request| {
            let draw = mix(mix(mix(seed) ^ conn as u64) ^ request);
            steps(base, draw % (max_awaits + 1), step)
        }
    }

    fn steps(base: Micros, awaits: u64, step: Micros) -> Vec<Micros> {
        let mut steps = vec![base];
        steps.resize(1 + awaits as usize, step);
        steps
    }

    /// SplitMix64's finaliser: a fixed, well-spread hash, so the work is the same on every
    /// machine and in every run.
    pub fn mix(mut x: u64) -> u64 {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
    // ANCHOR_END: work
}
// ANCHOR_END: given_simulator
