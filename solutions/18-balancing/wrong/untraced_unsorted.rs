//! Wrong (an edit to the given simulator): the latencies are sorted only when the run keeps
//! a trace, "an untraced run skips the work". Every test used to trace its runs, so every
//! p50 and p99 they read came from a sorted list; a long run without a trace (the chapter's
//! extrapolation) reads its percentiles off an unsorted one. The runs on 8 and 64 cores
//! are now pinned without a trace too.
//! expect-fail: skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: simulate
/// Runs `load` under `policy`. `work(conn, request)` gives the cost of each step of
/// that request (at least one step, each at least 1 µs); it is called once per
/// request, so both policies see the same work.
pub fn simulate(policy: Policy, load: &Load, work: impl Fn(usize, u64) -> Vec<Micros>) -> Report {
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
        // ANCHOR: dispatch
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
    if load.trace {
        // Sorted for the trace's readers; an untraced run skips the work.
        report.latencies.sort_unstable();
    }
    report.throughput = report.completed * 1_000_000 / load.duration.max(1);
    report
}
