//! Lab 18's tests: first `Policy::pick` on queues built by hand, then whole runs of the
//! simulator, checked on their numbers (exact integers: virtual time has no noise) and on
//! their trace (which core ran which step, and when).
//!
//! Every test runs under a wall-clock watchdog: a `pick` that searches forever for a
//! step must fail the test, not hang it.

use std::collections::VecDeque;
use std::time::Duration;

use balancing::{Load, Micros, Policy, Ready, Report, Run, simulate, skewed, uniform};

const STUCK: &str = "the test did not finish: does `pick` loop forever looking for a step \
                     when every queue is empty? It must return None then.";

/// Runs `f` under a 10 s watchdog: generous (the slowest test takes well under a second)
/// because it only turns a hang into a failure.
fn guarded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    lab_support::within(Duration::from_secs(10), STUCK, f)
}

/// Queues from lists of `(seq, conn)`, one list per core, oldest first.
fn queues(cores: &[&[(u64, usize)]]) -> Vec<VecDeque<Ready>> {
    cores
        .iter()
        .map(|q| q.iter().map(|&(seq, conn)| Ready { seq, conn }).collect())
        .collect()
}

fn seqs(queues: &[VecDeque<Ready>]) -> Vec<Vec<u64>> {
    queues
        .iter()
        .map(|q| q.iter().map(|r| r.seq).collect())
        .collect()
}

#[test]
fn a_core_runs_its_own_oldest_step_first() {
    guarded(|| {
        for policy in [Policy::PerConnection, Policy::WorkStealing] {
            // Core 0 holds steps 3 and 8; core 1 holds an older one, step 1.
            let mut q = queues(&[&[(3, 0), (8, 2)], &[(1, 1)]]);
            let got = policy.pick(0, &mut q).map(|r| r.seq);
            assert_eq!(
                got,
                Some(3),
                "{policy:?}: core 0's queue is [3, 8] and core 1's is [1]; core 0 must run \
                 step 3, the oldest of its own queue (a core's queue is first in, first out, \
                 and a core with work of its own does not take another core's), got {got:?}"
            );
            assert_eq!(
                seqs(&q),
                [vec![8], vec![1]],
                "{policy:?}: only step 3 leaves"
            );
        }
    });
}

#[test]
fn per_connection_never_takes_another_cores_step() {
    guarded(|| {
        let mut q = queues(&[&[], &[(1, 1), (4, 3)], &[(2, 2)]]);
        let got = Policy::PerConnection.pick(0, &mut q);
        assert_eq!(
            got, None,
            "per connection, core 0 has an empty queue and must stay idle: steps 1, 4 and 2 \
             belong to connections given to cores 1 and 2, got {got:?}"
        );
        assert_eq!(seqs(&q), [vec![], vec![1, 4], vec![2]]);
    });
}

// ANCHOR: steal_test
#[test]
fn an_idle_core_steals_the_oldest_waiting_step() {
    guarded(|| {
        // Core 0 is idle with nothing of its own. The oldest step anywhere is 4, at the
        // front of the last core's queue; the newest is 13, behind it.
        let mut q = queues(&[
            &[],
            &[(6, 1), (11, 5)],
            &[(9, 2), (12, 6)],
            &[(4, 3), (13, 7)],
        ]);
        let got = Policy::WorkStealing.pick(0, &mut q).map(|r| r.seq);
        let hint = match got {
            Some(13) | Some(11) | Some(12) => {
                "you took the newest step of a queue (its back): the thief takes the one \
                 that has waited longest, at the front"
            }
            Some(6) => {
                "6 is the oldest of core 1's queue, not of all queues: compare the fronts \
                 of every other core's queue (is the last core skipped, or only the \
                 neighbour looked at?)"
            }
            Some(9) => "9 is not the oldest waiting step",
            None => "an idle core with an empty queue must steal, not stay idle",
            _ => "that is not the oldest waiting step",
        };
        assert_eq!(
            got,
            Some(4),
            "core 0 should steal step 4, got {got:?}: {hint}"
        );
        assert_eq!(
            seqs(&q),
            [vec![], vec![6, 11], vec![9, 12], vec![13]],
            "a thief takes one step, and only the one it returns"
        );
    });
}
// ANCHOR_END: steal_test

#[test]
fn the_oldest_step_wins_not_the_longest_queue() {
    guarded(|| {
        // Core 1 has the longest backlog, but the step that has waited longest (4) is on
        // core 2, behind a shorter queue.
        let mut q = queues(&[
            &[],
            &[(6, 1), (11, 5), (14, 7), (15, 8)],
            &[(4, 2), (13, 6)],
        ]);
        let got = Policy::WorkStealing.pick(0, &mut q).map(|r| r.seq);
        assert_eq!(
            got,
            Some(4),
            "core 0 should steal step 4, the one that has waited longest, got {got:?}: \
             the victim is the queue whose front is oldest, not the longest queue (nor \
             the busiest core)"
        );
        assert_eq!(seqs(&q), [vec![], vec![6, 11, 14, 15], vec![13]]);
    });
}

#[test]
fn a_thief_looks_at_every_other_core() {
    guarded(|| {
        // 12 cores as well as 5: a search that looks at a few neighbours only, or that
        // gives up on larger machines, finds nothing on the far side.
        for n in [5, 12] {
            a_thief_looks_at_every_other_core_of(n);
        }
    });
}

/// Every thief finds a step waiting on any other core of `n`, and the oldest of them.
fn a_thief_looks_at_every_other_core_of(n: usize) {
    for thief in 0..n {
        for victim in (0..n).filter(|&v| v != thief) {
            // One waiting step, on `victim`'s queue.
            let mut q: Vec<VecDeque<Ready>> = vec![VecDeque::new(); n];
            q[victim].push_back(Ready {
                seq: 7,
                conn: victim,
            });
            let got = Policy::WorkStealing.pick(thief, &mut q).map(|r| r.seq);
            assert_eq!(
                got,
                Some(7),
                "with {n} cores, idle core {thief} must find the step waiting on core \
                 {victim}, got {got:?}: every other core is a possible victim (an \
                 off-by-one in the loop over cores skips one)"
            );
            // And the oldest wins wherever it is: a younger step on every other core.
            let mut q: Vec<VecDeque<Ready>> = (0..n)
                .map(|c| {
                    VecDeque::from([Ready {
                        seq: 100 + c as u64,
                        conn: c,
                    }])
                })
                .collect();
            q[thief].clear();
            q[victim][0].seq = 50;
            let got = Policy::WorkStealing.pick(thief, &mut q).map(|r| r.seq);
            assert_eq!(
                got,
                Some(50),
                "idle core {thief} must steal the oldest step (50, on core {victim}) \
                 among the fronts of all other queues, got {got:?}"
            );
        }
    }
}

#[test]
fn nothing_to_run_means_none() {
    guarded(|| {
        for policy in [Policy::PerConnection, Policy::WorkStealing] {
            for n in 1..=4 {
                let mut q: Vec<VecDeque<Ready>> = vec![VecDeque::new(); n];
                for core in 0..n {
                    assert_eq!(
                        policy.pick(core, &mut q),
                        None,
                        "{policy:?}: every queue is empty, so core {core} of {n} stays idle"
                    );
                }
            }
        }
    });
}

// Whole runs. `work` is the seed's handler: a first step of 10 µs, then 0 to 10 awaited
// steps of 10 µs each, drawn per request from a seed.
const SEED: u64 = 18;

fn run(policy: Policy, load: &Load, work: impl Fn(usize, u64) -> Vec<Micros>) -> Report {
    simulate(policy, load, work)
}

/// Below saturation: few connections per core, each pausing between requests, so a core
/// can run out of work while another has a backlog.
fn light(cores: usize) -> Load {
    Load {
        cores,
        connections: 2 * cores,
        gap: 100,
        duration: 200_000,
        trace: true,
    }
}

fn where_ran(r: &Run) -> String {
    format!(
        "step {} of request {} on connection {}",
        r.step, r.request, r.conn
    )
}

#[test]
fn uniform_work_gives_equal_throughput() {
    guarded(|| {
        // Every request alike: 10 µs, then 5 awaited steps of 10 µs.
        let load = light(4);
        let tpc = run(Policy::PerConnection, &load, uniform(10, 5, 10));
        let ws = run(Policy::WorkStealing, &load, uniform(10, 5, 10));
        assert_eq!(
            (ws.throughput, ws.p99()),
            (tpc.throughput, tpc.p99()),
            "with uniform work, every core has the same load: work-stealing (left) and \
             per-connection (right) should serve the same requests per second with the \
             same p99 (µs)"
        );
        assert_eq!(
            ws.migrations, 0,
            "with uniform work no core runs dry before another: nothing should be stolen"
        );
    });
}

// ANCHOR: skewed_test
#[test]
fn skewed_work_gives_stealing_a_lower_p99() {
    guarded(|| {
        let load = light(4);
        let tpc = run(Policy::PerConnection, &load, skewed(SEED, 10, 10, 10));
        let ws = run(Policy::WorkStealing, &load, skewed(SEED, 10, 10, 10));
        assert!(
            tpc.idle_while_waiting > 0,
            "the scenario is meant to leave per-connection cores idle while steps wait"
        );
        assert!(
            ws.p99() < tpc.p99() && ws.throughput > tpc.throughput,
            "with uneven work, stealing should finish more requests (got {} vs {} per \
             second) with a lower p99 (got {} µs vs {} µs, per connection on the right)",
            ws.throughput,
            tpc.throughput,
            ws.p99(),
            tpc.p99()
        );
    });
}
// ANCHOR_END: skewed_test

#[test]
fn per_connection_never_moves_a_step() {
    guarded(|| {
        let load = light(4);
        let report = run(Policy::PerConnection, &load, skewed(SEED, 10, 10, 10));
        for r in &report.runs {
            assert_eq!(
                r.core,
                r.conn % load.cores,
                "{} ran on core {}, but the connection was given to core {}: per \
                 connection, every step runs where its connection lives",
                where_ran(r),
                r.core,
                r.conn % load.cores
            );
        }
        assert_eq!(report.migrations, 0);
    });
}

#[test]
fn stealing_never_leaves_a_core_idle_while_a_step_waits() {
    guarded(|| {
        for cores in [2, 3, 5] {
            let load = light(cores);
            let report = run(Policy::WorkStealing, &load, skewed(SEED, 10, 10, 10));
            // From the trace: +1/-1 events for waiting steps and busy cores.
            let mut events: Vec<(Micros, i64, i64)> = Vec::new(); // (time, waiting, busy)
            for r in &report.runs {
                events.push((r.ready_at, 1, 0));
                events.push((r.start, -1, 1));
                events.push((r.end, 0, -1));
            }
            events.sort();
            let (mut waiting, mut busy) = (0, 0);
            for (i, &(t, w, b)) in events.iter().enumerate() {
                waiting += w;
                busy += b;
                let next = events.get(i + 1).map_or(t, |e| e.0);
                if next == t || t >= load.duration {
                    continue; // more events at t, or past the end of the run
                }
                if waiting > 0 && busy < cores as i64 {
                    let late = report
                        .runs
                        .iter()
                        .find(|r| r.ready_at <= t && t < r.start)
                        .expect("a waiting step");
                    let idle: Vec<usize> = (0..cores)
                        .filter(|&c| {
                            !report
                                .runs
                                .iter()
                                .any(|r| r.core == c && r.start <= t && t < r.end)
                        })
                        .collect();
                    panic!(
                        "with {cores} cores, from {t} µs to {next} µs core(s) {idle:?} sat \
                         idle while {} waited (ready at {} µs, ran at {} µs on core {}): an \
                         idle core must steal a waiting step",
                        where_ran(late),
                        late.ready_at,
                        late.start,
                        late.core
                    );
                }
            }
            assert_eq!(report.idle_while_waiting, 0);
        }
    });
}

#[test]
fn an_idle_core_takes_over_a_waiting_task() {
    guarded(|| {
        // Two cores, three connections: 0 and 2 live on core 0, 1 on core 1. Connection 1
        // sends one short request and then falls silent (its gap outlasts the run), so
        // core 1 runs dry while core 0 holds two tasks of 4 steps each.
        let load = Load {
            cores: 2,
            connections: 3,
            gap: 1_000_000,
            duration: 100_000,
            trace: true,
        };
        let work = |conn: usize, _| if conn == 1 { vec![5] } else { vec![10; 4] };
        let report = run(Policy::WorkStealing, &load, work);
        // At 5 µs core 1 runs dry and steals connection 2's first step; the task's later
        // steps are queued where it last ran, so it stays on core 1.
        let mut by_conn: Vec<Vec<(usize, Micros)>> = vec![Vec::new(); 3];
        for r in &report.runs {
            by_conn[r.conn].push((r.core, r.start));
        }
        assert_eq!(
            report.migrations, 1,
            "one steal balances this run: idle core 1 takes connection 2's waiting step \
             once, and the task's later steps stay on core 1 (got {} migrations; per \
             connection, (core, start) of each step: {:?})",
            report.migrations, by_conn
        );
        assert_eq!(
            (report.max(), report.completed),
            (45, 3),
            "after the steal each core runs one 4-step task: connection 2's ends at \
             5 + 40 = 45 µs, not 80 (per connection, (core, start) of each step: \
             {by_conn:?})"
        );
    });
}

#[test]
fn same_seed_same_result() {
    guarded(|| {
        for policy in [Policy::PerConnection, Policy::WorkStealing] {
            let a = run(policy, &light(3), skewed(SEED, 10, 10, 10));
            let b = run(policy, &light(3), skewed(SEED, 10, 10, 10));
            assert!(
                a == b,
                "{policy:?}: the same run twice gave different reports"
            );
            let c = run(policy, &light(3), skewed(SEED + 1, 10, 10, 10));
            assert!(a != c, "{policy:?}: another seed should draw other work");
        }
    });
}

#[test]
fn more_cores_than_connections() {
    guarded(|| {
        // 8 cores, 3 connections: each request (60 µs) has a core to itself, so none
        // waits. A request every 60 + 50 µs per connection, 1000 of them in 110 ms.
        let load = Load {
            cores: 8,
            connections: 3,
            gap: 50,
            duration: 110_000,
            trace: true,
        };
        for policy in [Policy::PerConnection, Policy::WorkStealing] {
            let r = run(policy, &load, uniform(10, 5, 10));
            assert_eq!(
                (r.completed, r.throughput, r.p50(), r.max()),
                (3000, 27_272, 60, 60),
                "{policy:?}: 3 connections on 8 cores never wait: 3000 requests of \
                 exactly 60 µs (completed, per second, p50, max)"
            );
            assert_eq!(
                r.migrations, 0,
                "{policy:?}: a core that just ran a step is free to run the next one; \
                 nothing should move"
            );
            let used: Vec<usize> = r.runs.iter().map(|r| r.core).collect();
            assert!(
                used.iter().all(|&c| c < 3),
                "{policy:?}: cores 3 to 7 have no connection and nothing to do"
            );
        }
    });
}

#[test]
fn one_core_is_the_same_under_both_policies() {
    guarded(|| {
        // One core, two connections sending back to back: the core never rests.
        let load = Load {
            cores: 1,
            connections: 2,
            gap: 0,
            duration: 100_000,
            trace: true,
        };
        let tpc = run(Policy::PerConnection, &load, skewed(SEED, 10, 10, 10));
        let ws = run(Policy::WorkStealing, &load, skewed(SEED, 10, 10, 10));
        assert!(
            tpc == ws,
            "with one core there is nobody to steal from: both policies must produce the \
             same run (throughput {} vs {}, p99 {} vs {})",
            tpc.throughput,
            ws.throughput,
            tpc.p99(),
            ws.p99()
        );
        let worked: Micros = tpc
            .runs
            .iter()
            .map(|r| r.end.min(load.duration) - r.start)
            .sum();
        assert_eq!(
            worked, load.duration,
            "one core with work always waiting is busy the whole run"
        );
    });
}
