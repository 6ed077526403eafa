//! Lab 18's tests: first `Policy::pick` on queues built by hand (and on many generated
//! ones), checked on the step it returns and on the queues it leaves; then whole runs of
//! the simulator, checked on their numbers (exact integers: virtual time has no noise) and
//! on their trace (which core ran which step, and when, checked step by step against the
//! rule). Some runs pin the given simulator's results exactly, so a run cannot be made
//! green by editing the experiment.
//!
//! `pick` cannot tell a test from a run: a queue's count of looks starts from 0 at every
//! call in both, and the hand-built steps' connections are unrelated to their ages, as in
//! a run. So a pick that behaves one way here and another there fails the runs' checks.
//!
//! Every test runs under a wall-clock watchdog: a `pick` that searches forever for a
//! step must fail the test, not hang it.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use balancing::{
    Load, Micros, Policy, Ready, Report, Run, RunQueue, mix, simulate, skewed, uniform,
};

const STUCK: &str = "the test did not finish: does `pick` loop forever looking for a step \
                     when every queue is empty? It must return None then.";

/// Runs `f` under a 10 s watchdog: generous (the slowest test takes well under a second)
/// because it only turns a hang into a failure.
fn guarded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    lab_support::within(Duration::from_secs(10), STUCK, f)
}

const POLICIES: [Policy; 2] = [Policy::PerConnection, Policy::WorkStealing];

// ---------------------------------------------------------------------------------------
// `pick` on queues built by hand.

/// Queues from lists of seqs, one list per core, oldest first.
fn queues(cores: &[&[u64]]) -> Vec<RunQueue> {
    cores.iter().map(|q| build(q)).collect()
}

fn build(seqs: &[u64]) -> RunQueue {
    seqs.iter().map(|&seq| ready(seq)).collect()
}

/// A waiting step. `pick` has no use for a step's connection; each gets one drawn from its
/// seq, unrelated to its age, as in a run (where connection numbers say nothing of age).
fn ready(seq: u64) -> Ready {
    Ready {
        seq,
        conn: (mix(seq) % 4096) as usize,
    }
}

/// `n` empty queues.
fn empty(n: usize) -> Vec<RunQueue> {
    (0..n).map(|_| RunQueue::default()).collect()
}

fn seqs(queues: &[RunQueue]) -> Vec<Vec<u64>> {
    queues
        .iter()
        .map(|q| q.iter().map(|r| r.seq).collect())
        .collect()
}

/// The rule, on plain lists: the step `pick` must return and the queues it must leave.
/// A core with steps of its own takes its oldest; otherwise, per connection, nothing;
/// otherwise the oldest front of the other queues, and only that one step.
fn rule(policy: Policy, core: usize, before: &[Vec<u64>]) -> (Option<u64>, Vec<Vec<u64>>) {
    let mut after = before.to_vec();
    let from = if !after[core].is_empty() {
        Some(core)
    } else if policy == Policy::PerConnection {
        None
    } else {
        (0..after.len())
            .filter(|&c| c != core && !after[c].is_empty())
            .min_by_key(|&c| after[c][0])
    };
    let step = from.map(|c| after[c].remove(0));
    (step, after)
}

/// The non-empty queues, as `core: [seqs]`.
fn show(queues: &[Vec<u64>]) -> String {
    let cores: Vec<String> = queues
        .iter()
        .enumerate()
        .filter(|(_, q)| !q.is_empty())
        .map(|(c, q)| format!("core {c}: {q:?}"))
        .collect();
    if cores.is_empty() {
        "all empty".to_owned()
    } else {
        format!("{} (the others empty)", cores.join(", "))
    }
}

fn show_step(step: Option<u64>) -> String {
    step.map_or("None".to_owned(), |s| format!("step {s}"))
}

/// Where step `seq` waits in `queues`: (core, position from the front).
fn find(queues: &[Vec<u64>], seq: u64) -> Option<(usize, usize)> {
    queues
        .iter()
        .enumerate()
        .find_map(|(c, q)| q.iter().position(|&s| s == seq).map(|i| (c, i)))
}

/// What `pick` did wrong, in words, or `None` if it followed the rule.
fn diagnose(
    policy: Policy,
    core: usize,
    before: &[Vec<u64>],
    got: Option<u64>,
    after: &[Vec<u64>],
) -> Option<String> {
    let (want, want_after) = rule(policy, core, before);
    if (got, after) == (want, &want_after[..]) {
        return None;
    }
    let n = before.len();
    let scene = format!(
        "{policy:?}, idle core {core} of {n}, queues oldest first: {}. pick returned {} and \
         left {}; it should return {} and leave {}",
        show(before),
        show_step(got),
        show(after),
        show_step(want),
        show(&want_after)
    );
    let own = &before[core];
    let waiting: usize = before.iter().map(Vec::len).sum();
    let why = if got == want {
        // The right step, but the queues are not what they should be.
        let moved: Vec<u64> = after[core]
            .iter()
            .filter(|s| !want_after[core].contains(s))
            .copied()
            .collect();
        let mut lost: Vec<u64> = want_after.concat();
        lost.retain(|s| find(after, *s).is_none());
        if !moved.is_empty() {
            format!(
                "it also moved {moved:?} into core {core}'s own queue: a thief takes exactly \
                 one step, the one it returns (tokio's thief takes half a queue; this lab's \
                 takes one, and the simulator checks that only the returned step left)"
            )
        } else if !lost.is_empty() {
            format!("it also took {lost:?} out of the queues without returning them")
        } else {
            "it changed the order of a queue: every queue stays oldest first, untouched \
             apart from the one step taken from its front"
                .to_owned()
        }
    } else if !own.is_empty() {
        if got == own.last().copied() && own.len() > 1 {
            format!(
                "a core runs its own queue oldest first, however long it is (here {} steps): \
                 it took its newest step (the back)",
                own.len()
            )
        } else {
            "a core with steps of its own runs the oldest of them (the front of its own \
             queue), whatever the policy, and takes nothing from other cores"
                .to_owned()
        }
    } else if policy == Policy::PerConnection {
        "per connection, a core whose queue is empty stays idle (None), whatever the other \
         queues hold, however many cores there are and however old the steps: those steps \
         belong to connections given to other cores"
            .to_owned()
    } else if got.is_none() {
        let far = if n > 12 {
            format!(
                ". On {n} cores: does the search stop after a fixed number of cores (64 is no \
                 limit either), or look only at near ones?"
            )
        } else {
            String::new()
        };
        let steps = if waiting == 1 {
            "1 step waits".to_owned()
        } else {
            format!("{waiting} steps wait")
        };
        format!(
            "it stayed idle while {steps} elsewhere: an idle core with an empty queue \
             steals, whatever the number of cores, the length of the queues or the number \
             of steps waiting (the tests call pick directly: nothing else steals for it){far}"
        )
    } else if let (Some(s), None) = (got, want) {
        format!("step {s} was in no queue: with every queue empty, return None")
    } else {
        let (s, best) = (got.unwrap(), want.unwrap());
        let (v, _) = find(before, best).unwrap();
        match find(before, s) {
            None => format!("step {s} was in no queue"),
            Some((c, i)) if i + 1 == before[c].len() && i > 0 => format!(
                "step {s} is the newest of core {c}'s queue (its back): a thief takes from \
                 the front, where the step that has waited longest is"
            ),
            Some((c, i)) if i > 0 => {
                format!("step {s} is in the middle of core {c}'s queue: take from the front")
            }
            Some((c, _)) => {
                let distance = |a: usize, b: usize| a.abs_diff(b).min(n - a.abs_diff(b));
                // Whether `s` looks older than `best` once cut to fewer bits.
                let cut = (s as u16) < (best as u16)
                    || (s as u32) < (best as u32)
                    || (s as i64) < (best as i64)
                    || (s as f64) <= (best as f64);
                let detail = if cut {
                    format!(
                        "are the seqs cut to fewer bits (`as u16`, `as u32`, `as i64`, `as f64`) \
                         before they are compared? A seq is a u64: a long run passes 65,536 \
                         steps, then 2^32, and {best} < {s} only as the whole number"
                    )
                } else if before[c].len() > before[v].len() {
                    format!(
                        "core {c}'s queue holds {} steps and core {v}'s only {}: the victim \
                         is the queue whose front has waited longest, not the longest queue \
                         or one with a backlog (a lone step can be the oldest)",
                        before[c].len(),
                        before[v].len()
                    )
                } else if before[v].len() > before[c].len() {
                    format!(
                        "core {v}'s queue holds {} steps and core {c}'s only {}: a long queue \
                         is a victim like any other, however long, and its front is what counts",
                        before[v].len(),
                        before[c].len()
                    )
                } else if distance(core, v) > distance(core, c) {
                    format!(
                        "core {v} is farther from core {core} than core {c}: every other \
                         core is a possible victim, near or far"
                    )
                } else {
                    "compare the fronts of every other core's queue and take the smallest \
                     seq"
                    .to_owned()
                };
                format!(
                    "step {best}, at the front of core {v}'s queue, has waited longer than \
                     step {s} (a smaller seq): {detail}"
                )
            }
        }
    };
    let end = if why.ends_with('?') { "" } else { "." };
    Some(format!("{scene}.\nWhat went wrong: {why}{end}"))
}

/// Calls `pick` on (fresh copies of) the queues `q` and checks it against the rule;
/// `context` opens the message. Leaves the queues as pick left them and returns the step's
/// seq.
fn check(policy: Policy, core: usize, q: &mut Vec<RunQueue>, context: &str) -> Option<u64> {
    check_counting(policy, core, q, context).0
}

/// `check`, and how many times pick looked at the queues.
fn check_counting(
    policy: Policy,
    core: usize,
    q: &mut Vec<RunQueue>,
    context: &str,
) -> (Option<u64>, u64) {
    let before = seqs(q);
    let mut fresh: Vec<RunQueue> = before.iter().map(|l| build(l)).collect();
    let got = policy.pick(core, &mut fresh).map(|r| r.seq);
    let looks = fresh.iter().map(RunQueue::looks).sum();
    let after = seqs(&fresh);
    if let Some(why) = diagnose(policy, core, &before, got, &after) {
        panic!("{context}\n{why}");
    }
    *q = fresh;
    (got, looks)
}

#[test]
fn a_core_runs_its_own_oldest_step_first() {
    guarded(|| {
        for policy in POLICIES {
            // Core 0 holds steps 3 and 8; core 1 holds an older one, step 1.
            let mut q = queues(&[&[3, 8], &[1]]);
            check(
                policy,
                0,
                &mut q,
                "core 0 has steps of its own: it runs the oldest of them",
            );
            // A longer queue of its own, and older steps elsewhere.
            let mut q = queues(&[&[1, 2], &[], &[20, 21, 22, 23, 24, 25], &[3, 4]]);
            check(
                policy,
                2,
                &mut q,
                "core 2 has steps of its own: it runs the oldest of them",
            );
        }
    });
}

#[test]
fn per_connection_never_takes_another_cores_step() {
    guarded(|| {
        let mut q = queues(&[&[], &[1, 4], &[2]]);
        check(
            Policy::PerConnection,
            0,
            &mut q,
            "per connection, core 0 has nothing of its own",
        );
        // Deep queues on every other core: still not core 0's connections.
        let mut q = queues(&[&[], &[1, 2, 3, 4, 5, 6, 7, 8], &[9, 10, 11], &[12, 13, 14]]);
        check(
            Policy::PerConnection,
            0,
            &mut q,
            "per connection, core 0 has nothing of its own while 14 steps wait elsewhere",
        );
        // 16 cores, a backlog of 5 on each odd one: no even core may take any of it.
        let mut q: Vec<RunQueue> = (0..16u64)
            .map(|c| {
                if c % 2 == 1 {
                    build(&[c * 10, c * 10 + 1, c * 10 + 2, c * 10 + 3, c * 10 + 4])
                } else {
                    RunQueue::default()
                }
            })
            .collect();
        for core in (0..16).step_by(2) {
            check(
                Policy::PerConnection,
                core,
                &mut q,
                "per connection, on 16 cores with a backlog of 5 on every odd core",
            );
        }
        // Bigger machines, and runs that have gone on for a while: seqs past 2^20 and 2^32
        // (a million steps and four billion). Still not core 0's connections, nor any
        // idle core's.
        for (n, first) in [(65u64, 1 << 20), (100, 1 << 32), (128, u64::MAX - 1_000)] {
            let mut q: Vec<RunQueue> = (0..n)
                .map(|c| build(&[first + c, first + n + c, first + 2 * n + c]))
                .collect();
            for core in [0, 1, 63, 64, n as usize / 2, n as usize - 1] {
                q[core] = RunQueue::default();
                check(
                    Policy::PerConnection,
                    core,
                    &mut q,
                    &format!(
                        "per connection, on {n} cores with 3 steps on almost every core, seqs \
                         from {first}"
                    ),
                );
            }
        }
    });
}

// ANCHOR: steal_test
#[test]
fn an_idle_core_steals_the_oldest_waiting_step() {
    guarded(|| {
        // Core 0 is idle with nothing of its own. The oldest step anywhere is 4, at the
        // front of the last core's queue; the newest is 13, behind it.
        let mut q = queues(&[&[], &[6, 11], &[9, 12], &[4, 13]]);
        let got = check(
            Policy::WorkStealing,
            0,
            &mut q,
            "core 0 should steal step 4, the oldest",
        );
        assert_eq!(got, Some(4));
    });
}
// ANCHOR_END: steal_test

#[test]
fn the_oldest_step_wins_not_the_longest_queue() {
    guarded(|| {
        // Core 1 has the longest backlog, but the step that has waited longest (4) is on
        // core 2, behind a shorter queue.
        let mut q = queues(&[&[], &[6, 11, 14, 15], &[4, 13]]);
        check(
            Policy::WorkStealing,
            0,
            &mut q,
            "core 0 should steal step 4, at the front of the shorter queue",
        );
    });
}

#[test]
fn a_lone_old_step_beats_a_backlog() {
    guarded(|| {
        // The oldest step waits alone; younger ones wait in a backlog elsewhere.
        let cases: [&[&[u64]]; 3] = [
            &[&[], &[1], &[2, 3, 4, 5, 6]],
            &[&[], &[2, 3, 4, 5, 6], &[1]],
            &[&[], &[3, 4, 5, 6, 7], &[8, 9, 10, 11], &[], &[1]],
        ];
        for case in cases {
            let mut q = queues(case);
            check(
                Policy::WorkStealing,
                0,
                &mut q,
                "core 0 should steal step 1, which waits alone but has waited longest",
            );
        }
    });
}

#[test]
fn a_thief_takes_one_step_from_the_front_of_a_long_queue() {
    guarded(|| {
        // The victim's queue is long: the thief takes its front, and only that.
        let cases: [(usize, &[&[u64]]); 3] = [
            (0, &[&[], &[2, 3, 4, 5, 6], &[7]]),
            (2, &[&[9, 10], &[1, 2, 3, 4, 5, 6, 7, 8], &[]]),
            (1, &[&[5, 6, 7], &[], &[8, 11], &[3, 4, 12, 13, 14, 15]]),
        ];
        for (thief, case) in cases {
            let mut q = queues(case);
            check(
                Policy::WorkStealing,
                thief,
                &mut q,
                "the thief takes exactly one step, the front of the victim's queue",
            );
        }
    });
}

#[test]
fn a_thief_steals_from_a_deep_backlog() {
    guarded(|| {
        // 24 steps wait on two cores; core 0 has none.
        let backlog: Vec<u64> = (1..=12).collect();
        let more: Vec<u64> = (13..=24).collect();
        let mut q = queues(&[&[], &backlog, &more]);
        check(
            Policy::WorkStealing,
            0,
            &mut q,
            "core 0 is idle while 24 steps wait: it steals step 1",
        );
        // 70 steps on 7 of 8 cores, the oldest at the front of the last one.
        let mut q: Vec<RunQueue> = (0..8u64)
            .map(|c| {
                let seqs: Vec<u64> = (0..10).map(|i| 100 + i * 8 + c).collect();
                if c == 0 {
                    RunQueue::default()
                } else {
                    build(&seqs)
                }
            })
            .collect();
        q[7] = build(&[5, 200, 201, 202, 203, 204, 205, 206, 207, 208]);
        check(
            Policy::WorkStealing,
            0,
            &mut q,
            "core 0 is idle while 70 steps wait: it steals step 5",
        );
    });
}

#[test]
fn long_queues_are_served_from_the_front() {
    guarded(|| {
        for len in [13u64, 20, 100] {
            // A long queue of its own, and older steps elsewhere: its own front, under
            // both policies.
            let own: Vec<u64> = (1..=len).map(|i| 10 * i).collect();
            for policy in POLICIES {
                let mut q = queues(&[&[1, 2], &own, &[3]]);
                check(
                    policy,
                    1,
                    &mut q,
                    &format!("core 1 has {len} steps of its own: it runs the oldest of them"),
                );
            }
            // The oldest step at the front of a long queue, a younger one alone elsewhere:
            // the thief takes the long queue's front, and only that.
            let long: Vec<u64> = (1..=len).map(|i| 2 * i).collect();
            let mut q = queues(&[&[], &[3], &long, &[]]);
            for _ in 0..3 {
                check(
                    Policy::WorkStealing,
                    0,
                    &mut q,
                    &format!(
                        "core 0 is idle; core 2 holds {len} steps (fewer after each call), \
                         the oldest at its front"
                    ),
                );
            }
            // The long queue is the only one with steps.
            let mut q = queues(&[&long, &[], &[]]);
            check(
                Policy::WorkStealing,
                2,
                &mut q,
                &format!("core 2 is idle; only core 0 has steps, {len} of them"),
            );
        }
    });
}

#[test]
fn seqs_past_u16_and_u32_still_order_the_steps() {
    guarded(|| {
        // A run of a few seconds passes 65,536 steps; a long one passes 2^32. Seqs compare
        // as the u64s they are. (core 0 is the thief.)
        let cases: [&[&[u64]]; 7] = [
            &[&[], &[65_541], &[10]],
            &[&[], &[65_535, 65_540], &[65_537]],
            &[&[], &[(1 << 32) + 3], &[7]],
            &[&[], &[(1 << 32) + 1], &[(1 << 32) - 1]],
            &[&[], &[(1 << 63) + 5], &[1 << 62]],
            &[&[], &[(1 << 53) + 1], &[1 << 53]],
            &[&[], &[u64::MAX - 1], &[u64::MAX - 2], &[u64::MAX]],
        ];
        for case in cases {
            let mut q = queues(case);
            check(
                Policy::WorkStealing,
                0,
                &mut q,
                "core 0 should steal the step with the smallest seq, a large one",
            );
        }
        // The same thief, again and again, on seqs around 65,536: the oldest each time.
        let mut q = queues(&[&[], &[65_530, 65_537, 65_541], &[65_533, 65_535], &[65_536]]);
        for _ in 0..6 {
            check(
                Policy::WorkStealing,
                0,
                &mut q,
                "the same thief asked again, on seqs around 65,536",
            );
        }
        // Its own queue first, whatever the seqs; per connection, nothing else.
        for policy in POLICIES {
            let mut q = queues(&[&[u64::MAX - 5, u64::MAX - 4], &[1], &[1 << 40]]);
            check(
                policy,
                0,
                &mut q,
                "core 0 has steps of its own, with large seqs",
            );
        }
        let mut q = queues(&[&[], &[1 << 20], &[1 << 40]]);
        check(
            Policy::PerConnection,
            0,
            &mut q,
            "per connection, core 0 has nothing of its own and the others' seqs are large",
        );
    });
}

#[test]
fn a_thief_steals_the_oldest_again_and_again() {
    guarded(|| {
        // The same queues, asked again and again: each time the oldest front wins, so the
        // thief takes 1, 2, 3, ... in order, wherever each waits. Nothing carries over
        // from one call to the next.
        let mut q = queues(&[&[], &[1, 5, 9], &[3, 7], &[2, 4, 6, 8]]);
        for want in 1..=4 {
            let got = check(
                Policy::WorkStealing,
                0,
                &mut q,
                "the same thief asked again: the oldest front wins each time, not the \
                 queue it robbed last",
            );
            assert_eq!(got, Some(want));
        }
        // New steps arrive at the backs, as they do in a run; two thieves take turns.
        q[1].push_back(ready(10));
        q[2].push_back(ready(11));
        q.push(RunQueue::default());
        for (i, want) in (5..=11).enumerate() {
            let thief = if i % 2 == 0 { 0 } else { 4 };
            let got = check(
                Policy::WorkStealing,
                thief,
                &mut q,
                "two thieves take turns on the same queues: the oldest front wins each \
                 time",
            );
            assert_eq!(got, Some(want));
        }
        check(
            Policy::WorkStealing,
            0,
            &mut q,
            "every step has been taken: nothing is left to steal",
        );
    });
}

#[test]
fn a_thief_looks_at_every_other_core() {
    guarded(|| {
        // 12, 16 and 64 cores as well as 5: a search that looks at a few neighbours only,
        // or that gives up on larger machines, finds nothing on the far side.
        for n in [5, 12, 16, 64] {
            a_thief_looks_at_every_other_core_of(n);
        }
    });
}

#[test]
fn a_thief_looks_at_every_other_core_past_64() {
    guarded(|| {
        // Machines of more than 64 cores: a search that stops at core 64, keeps 64 fronts
        // in a fixed array, or looks 32 cores either way finds nothing beyond.
        for n in [65, 100, 128] {
            a_thief_looks_at_every_other_core_of(n);
        }
    });
}

/// Every thief finds a step waiting on any other core of `n`, and the oldest of them.
fn a_thief_looks_at_every_other_core_of(n: usize) {
    // Every thief on small machines; on 64 cores, the thieves at both ends and in the
    // middle; past 64, at both ends and either side of core 64 (every victim still, for
    // every thief), to keep the test fast.
    let thieves: Vec<usize> = if n <= 16 {
        (0..n).collect()
    } else if n <= 64 {
        vec![0, 1, 2, n / 2 - 1, n / 2, n - 3, n - 2, n - 1]
    } else {
        vec![0, 63, 64, n - 1]
    };
    for thief in thieves {
        for victim in (0..n).filter(|&v| v != thief) {
            // One waiting step, on `victim`'s queue.
            let mut q: Vec<RunQueue> = empty(n);
            q[victim] = build(&[7]);
            check(
                Policy::WorkStealing,
                thief,
                &mut q,
                &format!("with {n} cores, one step waits on core {victim}"),
            );
            // And the oldest wins wherever it is: a younger step on every other core.
            let mut q: Vec<RunQueue> = (0..n as u64).map(|c| build(&[100 + c])).collect();
            q[thief] = RunQueue::default();
            q[victim] = build(&[50]);
            check(
                Policy::WorkStealing,
                thief,
                &mut q,
                &format!("with {n} cores, a step on every core, the oldest on core {victim}"),
            );
        }
    }
}

#[test]
fn nothing_to_run_means_none() {
    guarded(|| {
        for policy in POLICIES {
            for n in [1, 2, 3, 4, 16, 64] {
                let mut q: Vec<RunQueue> = empty(n);
                for core in 0..n {
                    check(
                        policy,
                        core,
                        &mut q,
                        &format!("every queue is empty: core {core} of {n} stays idle"),
                    );
                }
            }
        }
    });
}

/// A small deterministic generator (xorshift64*), so the tests need no crate.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// Random queues on `n` cores: about half of them empty, the others 1 to 20 steps long,
/// with the steps' ages shuffled across queues (each queue still oldest first). The seqs
/// are those of a young run, or of one that is passing 2^16, 2^32 or 2^53 steps (the seqs
/// straddle the boundary), or of one near the end of u64.
fn generated(rng: &mut Rng, n: usize) -> Vec<Vec<u64>> {
    let lengths: Vec<usize> = (0..n)
        .map(|_| {
            if rng.below(2) == 0 {
                0
            } else {
                1 + rng.below(20) as usize
            }
        })
        .collect();
    let total: usize = lengths.iter().sum();
    let straddle = |rng: &mut Rng, boundary: u64| boundary - rng.below(total as u64 + 1);
    let base = match rng.below(5) {
        0 => rng.below(1000),
        1 => straddle(rng, 1 << 16),
        2 => straddle(rng, 1 << 32),
        3 => straddle(rng, 1 << 53),
        _ => u64::MAX - 10_000 - rng.below(1000),
    };
    let mut ages: Vec<u64> = (0..total as u64).map(|a| base + a).collect();
    for i in (1..ages.len()).rev() {
        ages.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut at = 0;
    lengths
        .iter()
        .map(|&len| {
            let mut q = ages[at..at + len].to_vec();
            at += len;
            q.sort_unstable();
            q
        })
        .collect()
}

#[test]
fn pick_follows_the_rule_on_generated_queues() {
    guarded(|| {
        // 660 queue sets no one wrote by hand, on 2 to 128 cores: the step returned and
        // the queues left must be the rule's every time. Each set is asked three times
        // in a row, with a new step arriving between calls, as in a run.
        let mut rng = Rng(0x1818_2024_0bad_cafe);
        for n in [2, 3, 4, 5, 7, 8, 13, 16, 31, 64, 65, 100, 128] {
            for case in 0..if n > 64 { 20 } else { 60 } {
                let lists = generated(&mut rng, n);
                let first_new = lists.iter().flatten().max().map_or(0, |m| m + 1);
                let mut q: Vec<RunQueue> = lists.iter().map(|l| build(l)).collect();
                for call in 0..3 {
                    let context = format!("generated case {case} on {n} cores, call {call}");
                    let thief = rng.below(n as u64) as usize;
                    // Mostly an idle thief with nothing of its own: the interesting case.
                    if rng.below(4) != 0 {
                        q[thief] = RunQueue::default();
                    }
                    let mut copy: Vec<RunQueue> = seqs(&q).iter().map(|l| build(l)).collect();
                    check(Policy::PerConnection, thief, &mut copy, &context);
                    check(Policy::WorkStealing, thief, &mut q, &context);
                    let seq = first_new + call;
                    let to = rng.below(n as u64) as usize;
                    q[to].push_back(ready(seq));
                }
            }
        }
    });
}

/// Looks `pick` may take per queue: each queue read once or twice, and the one step taken.
const LOOKS_PER_QUEUE: u64 = 4;

#[test]
fn a_thief_does_not_spin() {
    guarded(|| {
        for n in [1usize, 2, 16, 64, 128] {
            for policy in POLICIES {
                let scenes: [(&str, Vec<RunQueue>); 3] = [
                    ("every queue empty", empty(n)),
                    ("one step, on the last core", {
                        let mut q = empty(n);
                        q[n - 1] = build(&[7]);
                        q
                    }),
                    ("a step on every core but the thief", {
                        let mut q: Vec<RunQueue> =
                            (0..n as u64).map(|c| build(&[100 + c, 200 + c])).collect();
                        q[0] = RunQueue::default();
                        q
                    }),
                ];
                for (scene, mut q) in scenes {
                    let machine = if n == 1 {
                        "1 core".to_owned()
                    } else {
                        format!("{n} cores")
                    };
                    let context = format!("{policy:?} on {machine}, {scene}");
                    let (got, looks) = check_counting(policy, 0, &mut q, &context);
                    assert!(
                        got.is_none() || looks > 0,
                        "{context}: pick took a step out of a queue, yet the queues counted no \
                         look. RunQueue counts every call made on it (front, pop_front, len, \
                         ...): that counting is part of the given simulator, and the tests \
                         measure pick with it. Undo the change to RunQueue."
                    );
                    let budget = LOOKS_PER_QUEUE * n as u64;
                    assert!(
                        looks <= budget,
                        "{context}: pick looked at the queues {looks} \
                         times (each front, len, is_empty, pop_front, ... counts once) to \
                         make one decision; reading each queue once or twice is enough (at \
                         most {budget} here). Nothing changes while pick runs, since no \
                         other core runs during the call: looking again is a busy spin that \
                         only burns the idle core's time. With nothing to take, return \
                         None: the simulator asks again after the next event."
                    );
                }
            }
        }
    });
}

/// Cores of the machine in `one_pass_over_the_queues_on_a_huge_machine`: more than any
/// real machine has, so that work that grows with the square of the cores shows.
const HUGE: u64 = 100_000;

#[test]
fn one_pass_over_the_queues_on_a_huge_machine() {
    let stuck = "one steal on a machine of 100,000 cores took more than 2 seconds, where one \
                 pass over the queues takes milliseconds: does pick compare every front with \
                 every other (work that grows with the square of the cores), or copy the \
                 queues again and again? Read each front once, keeping the oldest seen so far";
    lab_support::within(Duration::from_secs(2), stuck, || {
        // Core 0 is idle; every other core holds one step. The oldest waits on the last
        // core, then on core 1, then in the middle: the fronts in falling order, in rising
        // order, and falling over the first half of the cores, rising over the second (an
        // order in which some ways of cutting the comparisons short still make them all).
        let half = HUGE / 2;
        for layout in ["falling", "rising", "falling then rising"] {
            let mut q: Vec<RunQueue> = (0..HUGE)
                .map(|c| match layout {
                    _ if c == 0 => RunQueue::default(),
                    "falling" => build(&[10 * HUGE - c]),
                    "rising" => build(&[10 * HUGE + c]),
                    _ if c <= half => build(&[10 * HUGE - c]),
                    _ => build(&[10 * HUGE + c]),
                })
                .collect();
            let (oldest, victim) = match layout {
                "falling" => (9 * HUGE + 1, HUGE as usize - 1),
                "rising" => (10 * HUGE + 1, 1),
                _ => (10 * HUGE - half, half as usize),
            };
            let got = Policy::WorkStealing.pick(0, &mut q).map(|r| r.seq);
            let looks: u64 = q.iter().map(RunQueue::looks).sum();
            assert!(
                got == Some(oldest) && q[victim].is_empty(),
                "on 100,000 cores, core 0 idle and one step on every other core, the oldest \
                 (step {oldest}) on core {victim}: pick returned {}; it should take step \
                 {oldest} out of core {victim}'s queue (the tests of pick on smaller \
                 machines show what went wrong in more detail)",
                show_step(got)
            );
            assert!(
                looks <= LOOKS_PER_QUEUE * HUGE,
                "on 100,000 cores, pick looked at the queues {looks} times to make one \
                 decision: at most {LOOKS_PER_QUEUE} per queue"
            );
        }
    });
}

// ---------------------------------------------------------------------------------------
// The given simulator's numbers.

fn latencies(latencies: Vec<Micros>) -> Report {
    Report {
        latencies,
        ..Report::default()
    }
}

#[test]
fn percentile_is_the_nearest_rank() {
    guarded(|| {
        // (latencies, per mille, expected): the value at rank ceil(p * n / 1000), counted
        // from 1, of the sorted latencies. 1..=100: p99 is 99 (rank 99), p50 is 50.
        let hundred: Vec<Micros> = (1..=100).collect();
        let tail: Vec<Micros> = [vec![10; 99], vec![1000]].concat();
        let two_hundred: Vec<Micros> = (1..=200).collect();
        let cases: [(&str, &[Micros], u64, Micros); 12] = [
            ("1..=100", &hundred, 990, 99),
            ("1..=100", &hundred, 500, 50),
            ("1..=100", &hundred, 1000, 100),
            ("1..=100", &hundred, 1, 1),
            ("99 x 10 then 1000", &tail, 990, 10),
            ("99 x 10 then 1000", &tail, 500, 10),
            ("99 x 10 then 1000", &tail, 991, 1000),
            ("1..=200", &two_hundred, 990, 198),
            ("1..=200", &two_hundred, 995, 199),
            ("[7]", &[7], 990, 7),
            ("[7]", &[7], 0, 7),
            ("no request", &[], 990, 0),
        ];
        for (name, values, per_mille, want) in cases {
            let got = latencies(values.to_vec()).percentile(per_mille);
            let n = values.len() as u64;
            let rank = (per_mille * n).div_ceil(1000).max(1) as usize;
            let hint = if n > 0 && values.get(rank) == Some(&got) {
                " (one rank too high: the rank counts from 1, the index from 0)"
            } else if got != want && n > 0 {
                " (the value at that rank, not a mean or a mix of the values around it)"
            } else {
                ""
            };
            assert_eq!(
                got, want,
                "Report::percentile({per_mille}) of {name}: got {got}, expected {want}, the \
                 latency at rank ceil({per_mille} x {n} / 1000) of the sorted list{hint}. \
                 percentile is part of the given simulator: undo your change to it."
            );
        }
        let r = latencies(hundred);
        assert_eq!((r.p50(), r.p99(), r.max()), (50, 99, 100));
    });
}

/// The figures of a report that a run must match exactly.
#[derive(Debug, PartialEq)]
struct Figures {
    completed: u64,
    throughput: u64,
    p50: Micros,
    p99: Micros,
    max: Micros,
    latency_sum: Micros,
    migrations: u64,
    idle_while_waiting: Micros,
    picks: u64,
    steps_traced: usize,
}

fn figures(r: &Report) -> Figures {
    Figures {
        completed: r.completed,
        throughput: r.throughput,
        p50: r.p50(),
        p99: r.p99(),
        max: r.max(),
        latency_sum: r.latencies.iter().sum(),
        migrations: r.migrations,
        idle_while_waiting: r.idle_while_waiting,
        picks: r.picks,
        steps_traced: r.runs.len(),
    }
}

/// Compares a run's figures with the ones it must have, naming what differs.
fn pin(what: &str, r: &Report, want: Figures) {
    let got = figures(r);
    if got == want {
        return;
    }
    let mut differ = Vec::new();
    let mut rules = Vec::new();
    if got.completed != want.completed {
        differ.push("completed");
        rules.push("completed on `over` (a request that ends exactly at `duration` counts)");
    }
    if (got.p50, got.p99, got.max, got.latency_sum)
        != (want.p50, want.p99, want.max, want.latency_sum)
    {
        differ.push("latencies");
        rules.push("p50 and p99 on `percentile` (the nearest rank)");
    }
    if got.migrations != want.migrations {
        differ.push("migrations");
        rules.push(
            "migrations on `queue_for` (a ready step joins the queue of the core that ran \
             its request's latest step) and `dispatch_order` (cores with steps of their own \
             ask first)",
        );
    }
    if got.idle_while_waiting != want.idle_while_waiting {
        differ.push("idle_while_waiting");
        rules.push(
            "idle_while_waiting on `idle_while_waiting` (min(idle cores, waiting steps) for \
             each microsecond)",
        );
    }
    if got.picks != want.picks {
        differ.push("picks");
    }
    panic!(
        "{what}: the figures differ from the ones this run must give ({}).\n got:      \
         {got:?}\n expected: {want:?}\nThey follow from your pick and from the given \
         simulator. If the tests of pick on hand-built queues fail too, fix pick first. If \
         they pass, the simulator was changed: undo that. What depends on which of its rules: {}.",
        differ.join(", "),
        if rules.is_empty() {
            "none is named here".to_owned()
        } else {
            rules.join("; ")
        }
    );
}

/// A run small enough to follow by hand (the expected numbers are worked out below).
fn small() -> Load {
    Load {
        cores: 3,
        connections: 4,
        gap: 1_000_000, // each connection sends one request only
        duration: 40,
        trace: true,
    }
}

/// Connection 0's request is three steps of 10 µs; the others' one step of 10 µs.
fn small_work(conn: usize, _request: u64) -> Vec<Micros> {
    if conn == 0 { vec![10; 3] } else { vec![10] }
}

/// (conn, step, core, start) of every step, in the order they ended.
fn trace(r: &Report) -> Vec<(usize, usize, usize, Micros)> {
    r.runs
        .iter()
        .map(|r| (r.conn, r.step, r.core, r.start))
        .collect()
}

// ANCHOR: by_hand
#[test]
fn a_small_run_worked_by_hand() {
    guarded(|| {
        // 3 cores, 4 connections round-robin: 0 and 3 on core 0, 1 on core 1, 2 on core 2.
        // At 0 µs all four arrive; seqs 0..=3 in connection order, so queue 0 is [c0, c3].
        // Each core runs its front: c0's step 0, c1, c2. c3 waits on core 0.
        //
        // Per connection:
        //  10 µs: c1 and c2 end (latency 10 each); c0's step 1 joins queue 0 behind c3.
        //         Core 0 runs c3; cores 1 and 2 stay idle while c0's step 1 waits:
        //         min(2 idle, 1 waiting) x 10 µs = 10 µs of idle_while_waiting.
        //  20 µs: c3 ends (20). Core 0 runs c0's step 1.   30 µs: then its step 2.
        //  40 µs: c0 ends (40), exactly at `duration`: it counts. 4 requests in 40 µs =
        //         100,000 per second; latencies [10, 10, 20, 40]: p50 is rank 2 = 10, p99
        //         rank ceil(3.96) = 4 = 40. Idle cores ask pick at 0, 10, 20, 30 and 40 µs:
        //         3 each, 15 calls. 0 migrations.
        let tpc = simulate(Policy::PerConnection, &small(), small_work);
        pin(
            "per connection, the small run",
            &tpc,
            Figures {
                completed: 4,
                throughput: 100_000,
                p50: 10,
                p99: 40,
                max: 40,
                latency_sum: 80,
                migrations: 0,
                idle_while_waiting: 10,
                picks: 15,
                steps_traced: 6,
            },
        );
        // Work-stealing:
        //  10 µs: queue 0 is [c3, c0's step 1]. Core 0 asks first (it has steps of its
        //         own) and runs c3; core 1 steals c0's step 1 (1 migration); core 2 finds
        //         nothing. No core is idle while a step waits.
        //  20 µs: c3 ends (20); c0's step 2 joins queue 1, where step 1 ran. Core 1 asks
        //         first and runs it: no migration.
        //  30 µs: c0 ends (30). Nothing arrives any more: the run stops there.
        //  Latencies [10, 10, 20, 30]: p50 10, p99 30; picks at 0, 10, 20, 30 µs: 12.
        let ws = simulate(Policy::WorkStealing, &small(), small_work);
        pin(
            "work-stealing, the small run",
            &ws,
            Figures {
                completed: 4,
                throughput: 100_000,
                p50: 10,
                p99: 30,
                max: 30,
                latency_sum: 70,
                migrations: 1,
                idle_while_waiting: 0,
                picks: 12,
                steps_traced: 6,
            },
        );
        assert_eq!(
            trace(&ws),
            [
                (0, 0, 0, 0),
                (1, 0, 1, 0),
                (2, 0, 2, 0),
                (3, 0, 0, 10),
                (0, 1, 1, 10),
                (0, 2, 1, 20),
            ],
            "work-stealing, the small run: (connection, step, core, start) of each step, in \
             the order they ended. Connection 0's step 2 must run on core 1, where its step \
             1 ran after the steal: a ready step joins the queue of the core that ran its \
             request's latest step, and a core with steps of its own asks pick first"
        );
    });
}
// ANCHOR_END: by_hand

// ---------------------------------------------------------------------------------------
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
        duration: 50_000,
        trace: true,
    }
}

fn where_ran(r: &Run) -> String {
    format!(
        "step {} of request {} on connection {}",
        r.step, r.request, r.conn
    )
}

// The skewed runs of the tests below, pinned figure by figure. Too long to follow by
// hand (2,000 requests), so they were computed twice: by this simulator with the rule's
// pick, and by a separate re-implementation of the model's rules; both agree. Some checks
// anyone can redo: throughput is completed x 20 (50 ms of virtual time); per connection
// nothing migrates; stealing never leaves a core idle while a step waits, so it serves
// more requests, each step of 10 µs, and traces more steps.
#[test]
fn skewed_run_per_connection_exactly() {
    guarded(|| {
        let r = run(Policy::PerConnection, &light(4), skewed(SEED, 10, 10, 10));
        pin(
            "per connection, skewed work on 4 cores",
            &r,
            Figures {
                completed: 2225,
                throughput: 44_500,
                p50: 80,
                p99: 190,
                max: 210,
                latency_sum: 177_680,
                migrations: 0,
                idle_while_waiting: 25_190,
                picks: 19_920,
                steps_traced: 13_474,
            },
        );
    });
}

#[test]
fn skewed_run_work_stealing_exactly() {
    guarded(|| {
        let r = run(Policy::WorkStealing, &light(4), skewed(SEED, 10, 10, 10));
        pin(
            "work-stealing, skewed work on 4 cores",
            &r,
            Figures {
                completed: 2421,
                throughput: 48_420,
                p50: 60,
                p99: 140,
                max: 160,
                latency_sum: 158_060,
                migrations: 1021,
                idle_while_waiting: 0,
                picks: 19_900,
                steps_traced: 14_684,
            },
        );
    });
}

// The same load on 8 and 64 cores (for 20 ms and 3 ms), pinned the same way and
// cross-checked by the same separate re-implementation. Each runs once with a trace and
// once without: a trace records the steps, and changes nothing else in the report.
#[test]
fn skewed_runs_on_8_cores_exactly() {
    guarded(|| {
        let load = bigger(8);
        for (policy, want) in [
            (
                Policy::PerConnection,
                Figures {
                    completed: 1787,
                    throughput: 89_350,
                    p50: 80,
                    p99: 180,
                    max: 200,
                    latency_sum: 141_120,
                    migrations: 0,
                    idle_while_waiting: 23_790,
                    picks: 16_008,
                    steps_traced: 10_849,
                },
            ),
            (
                Policy::WorkStealing,
                Figures {
                    completed: 1965,
                    throughput: 98_250,
                    p50: 60,
                    p99: 130,
                    max: 140,
                    latency_sum: 123_650,
                    migrations: 1006,
                    idle_while_waiting: 0,
                    picks: 16_008,
                    steps_traced: 11_900,
                },
            ),
        ] {
            let traced = run(policy, &load, skewed(SEED, 10, 10, 10));
            pin(
                &format!("{policy:?}, skewed work on 8 cores"),
                &traced,
                want,
            );
            untraced_is_the_same(policy, &load, &traced);
        }
    });
}

#[test]
fn skewed_runs_on_64_cores_exactly() {
    guarded(|| {
        let load = Load {
            trace: false,
            ..bigger(64)
        };
        for (policy, want) in [
            (
                Policy::PerConnection,
                Figures {
                    completed: 2141,
                    throughput: 713_666,
                    p50: 80,
                    p99: 190,
                    max: 220,
                    latency_sum: 169_950,
                    migrations: 0,
                    idle_while_waiting: 38_670,
                    picks: 19_264,
                    steps_traced: 0,
                },
            ),
            (
                Policy::WorkStealing,
                Figures {
                    completed: 2398,
                    throughput: 799_333,
                    p50: 60,
                    p99: 130,
                    max: 150,
                    latency_sum: 146_610,
                    migrations: 1413,
                    idle_while_waiting: 0,
                    picks: 19_264,
                    steps_traced: 0,
                },
            ),
        ] {
            let untraced = run(policy, &load, skewed(SEED, 10, 10, 10));
            pin(
                &format!("{policy:?}, skewed work on 64 cores, without a trace"),
                &untraced,
                want,
            );
        }
    });
}

/// The run of `traced` again without a trace: the same report but for the trace.
fn untraced_is_the_same(policy: Policy, load: &Load, traced: &Report) {
    let untraced = run(
        policy,
        &Load {
            trace: false,
            ..load.clone()
        },
        skewed(SEED, 10, 10, 10),
    );
    let want = Report {
        runs: Vec::new(),
        ..traced.clone()
    };
    if untraced != want {
        let differ = |a: &Report, b: &Report| {
            let mut fields = Vec::new();
            if a.latencies != b.latencies {
                fields.push("latencies (in their order too: sorted)");
            }
            if (a.completed, a.throughput) != (b.completed, b.throughput) {
                fields.push("completed, throughput");
            }
            if (a.migrations, a.idle_while_waiting) != (b.migrations, b.idle_while_waiting) {
                fields.push("migrations, idle_while_waiting");
            }
            if (a.picks, a.looks) != (b.picks, b.looks) {
                fields.push("picks, looks");
            }
            if !a.runs.is_empty() {
                fields.push("runs (a trace was kept)");
            }
            fields.join("; ")
        };
        panic!(
            "{policy:?} on {} cores: the same run with `trace: false` gave another report than \
             with `trace: true` (they differ in: {}). A trace only records the steps; with \
             it or without, the figures are the same (p99 {} vs {}). Both come from the \
             given simulator and your pick: if pick is the rule's, the simulator was \
             changed; undo that.",
            load.cores,
            differ(&untraced, &want),
            untraced.p99(),
            want.p99()
        );
    }
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
        for load in [light(4), bigger(8), bigger(64)] {
            let report = run(Policy::PerConnection, &load, skewed(SEED, 10, 10, 10));
            for r in &report.runs {
                assert_eq!(
                    r.core,
                    r.conn % load.cores,
                    "with {} cores, {} ran on core {}, but the connection was given to core \
                     {}: per connection, every step runs where its connection lives",
                    load.cores,
                    where_ran(r),
                    r.core,
                    r.conn % load.cores
                );
            }
            assert_eq!(report.migrations, 0);
        }
    });
}

/// The light load on 8 or 64 cores, for a shorter time (20 ms on 8 cores, 3 ms on 64), so
/// that a run stays quick to simulate and to check.
fn bigger(cores: usize) -> Load {
    Load {
        duration: if cores > 8 { 3_000 } else { 20_000 },
        ..light(cores)
    }
}

/// From the trace: the first step that ran against the rule, as a message. At each instant
/// the simulator asks the idle cores, those with steps of their own first (each must run
/// the front of its own queue), then the others in core order (each must take the oldest
/// step still waiting, or, per connection, nothing). A step waits in the queue of the core
/// that ran its connection's latest step (at first, the core the connection was given).
fn against_the_rule(policy: Policy, report: &Report, load: &Load) -> Option<String> {
    let runs = &report.runs;
    let n = load.cores;
    // The queue each traced step waited in, following each connection's steps in order.
    let mut by_seq: Vec<usize> = (0..runs.len()).collect();
    by_seq.sort_by_key(|&i| runs[i].seq);
    let mut latest: Vec<usize> = (0..load.connections).map(|c| c % n).collect();
    let mut queue = vec![0; runs.len()];
    for &i in &by_seq {
        queue[i] = latest[runs[i].conn];
        latest[runs[i].conn] = runs[i].core;
    }
    let mut by_ready = by_seq.clone();
    by_ready.sort_by_key(|&i| (runs[i].ready_at, runs[i].seq));
    let mut starts: BTreeMap<Micros, Vec<usize>> = BTreeMap::new();
    for (i, r) in runs.iter().enumerate() {
        starts.entry(r.start).or_default().push(i);
    }
    // The steps waiting at the instant, all of them and per queue, as (seq, index).
    let mut waiting: BTreeSet<(u64, usize)> = BTreeSet::new();
    let mut waiting_on: Vec<BTreeSet<(u64, usize)>> = vec![BTreeSet::new(); n];
    let mut next = 0;
    let older = |o: usize| {
        format!(
            "{} (seq {}, waiting on core {} since {} µs) had waited longer",
            where_ran(&runs[o]),
            runs[o].seq,
            queue[o],
            runs[o].ready_at
        )
    };
    for (&t, started) in &starts {
        while let Some(&i) = by_ready.get(next).filter(|&&i| runs[i].ready_at <= t) {
            waiting.insert((runs[i].seq, i));
            waiting_on[queue[i]].insert((runs[i].seq, i));
            next += 1;
        }
        let (own, mut stolen): (Vec<usize>, Vec<usize>) =
            started.iter().partition(|&&i| runs[i].core == queue[i]);
        for i in own {
            let (_, first) = *waiting_on[queue[i]].first().expect("the step waits");
            if first != i {
                return Some(format!(
                    "{policy:?} on {n} cores: at {t} µs core {} ran {} (seq {}) from its own \
                     queue, but {}: a core runs its own queue oldest first",
                    runs[i].core,
                    where_ran(&runs[i]),
                    runs[i].seq,
                    older(first)
                ));
            }
            waiting.remove(&(runs[i].seq, i));
            waiting_on[queue[i]].remove(&(runs[i].seq, i));
        }
        stolen.sort_by_key(|&i| runs[i].core);
        for i in stolen {
            let thief = runs[i].core;
            let why = if policy == Policy::PerConnection {
                "per connection, a core runs only its own queue".to_owned()
            } else if let Some(&(_, mine)) = waiting_on[thief].first() {
                format!(
                    "its own queue still held {}: a core with steps of its own runs them",
                    where_ran(&runs[mine])
                )
            } else {
                let (_, first) = *waiting.first().expect("the step waits");
                if first == i {
                    String::new()
                } else {
                    format!(
                        "{}: in a run as on the queues built by hand, a thief takes the \
                         oldest step waiting anywhere",
                        older(first)
                    )
                }
            };
            if !why.is_empty() {
                return Some(format!(
                    "{policy:?} on {n} cores: at {t} µs core {thief} took {} (seq {}) from core \
                     {}'s queue, but {why}",
                    where_ran(&runs[i]),
                    runs[i].seq,
                    queue[i]
                ));
            }
            waiting.remove(&(runs[i].seq, i));
            waiting_on[queue[i]].remove(&(runs[i].seq, i));
        }
    }
    None
}

#[test]
fn every_steal_of_a_run_follows_the_rule() {
    guarded(|| {
        // Whole runs, step by step: `pick` must do in the simulator exactly what it does
        // on the queues built by hand, on small machines (10 ms each) and on big ones.
        // (Per connection's runs are checked by per_connection_never_moves_a_step and the
        // pinned runs.)
        let short = |cores| Load {
            duration: 10_000,
            ..light(cores)
        };
        for load in [short(2), short(3), short(5), bigger(8), bigger(64)] {
            let policy = Policy::WorkStealing;
            let report = run(policy, &load, skewed(SEED, 10, 10, 10));
            if let Some(why) = against_the_rule(policy, &report, &load) {
                panic!("{why}");
            }
        }
    });
}

/// From the trace: the first instant a core sat idle while a step waited, as a message.
fn idle_while_a_step_waits(report: &Report, load: &Load) -> Option<String> {
    let cores = load.cores;
    // +1/-1 events for waiting steps and busy cores.
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
            return Some(format!(
                "with {cores} cores, from {t} µs to {next} µs core(s) {idle:?} sat idle \
                 while {} waited (ready at {} µs, ran at {} µs on core {}): an idle core \
                 must steal a waiting step",
                where_ran(late),
                late.ready_at,
                late.start,
                late.core
            ));
        }
    }
    None
}

#[test]
fn stealing_never_leaves_a_core_idle_while_a_step_waits() {
    guarded(|| {
        for cores in [2, 3, 5] {
            let load = light(cores);
            let report = run(Policy::WorkStealing, &load, skewed(SEED, 10, 10, 10));
            if let Some(why) = idle_while_a_step_waits(&report, &load) {
                panic!("{why}");
            }
            assert_eq!(report.idle_while_waiting, 0);
        }
    });
}

#[test]
fn a_64_core_machine_never_idles_while_a_step_waits() {
    guarded(|| {
        // A big machine under light load: most cores are idle most of the time, so a
        // thief often searches 63 queues, and often finds them all empty. First a short
        // run, to count how often pick looks at the queues (a spin shows there already).
        let probe = Load {
            duration: 300,
            ..light(64)
        };
        let report = run(Policy::WorkStealing, &probe, skewed(SEED, 10, 10, 10));
        let budget = LOOKS_PER_QUEUE * probe.cores as u64 * report.picks;
        assert!(
            report.looks <= budget,
            "on 64 cores, pick was called {} times and looked at the queues {} times in \
             all, more than {LOOKS_PER_QUEUE} looks per queue per call: does it keep \
             re-reading the queues (a busy spin) when there is nothing to take?",
            report.picks,
            report.looks
        );
        let load = Load {
            duration: 3_000,
            ..light(64)
        };
        let report = run(Policy::WorkStealing, &load, skewed(SEED, 10, 10, 10));
        if let Some(why) = idle_while_a_step_waits(&report, &load) {
            panic!("{why}");
        }
        assert_eq!(
            report.idle_while_waiting, 0,
            "on 64 cores, work-stealing left cores idle while steps waited"
        );
        let tpc = run(Policy::PerConnection, &load, skewed(SEED, 10, 10, 10));
        assert!(
            tpc.idle_while_waiting > 0 && report.p99() < tpc.p99(),
            "on 64 cores, per connection should leave cores idle while steps wait (got {} \
             core-µs) and have the higher p99 (got {} µs vs {} µs for stealing)",
            tpc.idle_while_waiting,
            tpc.p99(),
            report.p99()
        );
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
        for policy in POLICIES {
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
        // waits. A request every 60 + 50 µs per connection, 300 of them in 33 ms.
        let load = Load {
            cores: 8,
            connections: 3,
            gap: 50,
            duration: 33_000,
            trace: true,
        };
        for policy in POLICIES {
            let r = run(policy, &load, uniform(10, 5, 10));
            assert_eq!(
                (r.completed, r.throughput, r.p50(), r.max()),
                (900, 27_272, 60, 60),
                "{policy:?}: 3 connections on 8 cores never wait: 900 requests of \
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
            duration: 30_000,
            trace: true,
        };
        let tpc = run(Policy::PerConnection, &load, skewed(SEED, 10, 10, 10));
        let ws = run(Policy::WorkStealing, &load, skewed(SEED, 10, 10, 10));
        // How often pick looked at the queues may differ; nothing else may.
        let same = |r: &Report| Report {
            looks: 0,
            ..r.clone()
        };
        assert!(
            same(&tpc) == same(&ws),
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
