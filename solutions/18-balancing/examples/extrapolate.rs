//! What a 2-core machine cannot show: the lab 18 simulator run for 2, 8, 16 and 64 cores,
//! uniform and skewed work, under both policies and two loads; the seed's 8-core skewed
//! run modelled; and, measured on this machine, how long `std::thread::sleep(10 µs)`
//! really lasts. Prints JSON; `scripts/bench granularity` writes it to
//! src/part4/data/granularity.json and draws chapter 18's chart from it.
//!
//! `cargo run --release -p balancing-solution --example extrapolate` (add `-- --smoke` for
//! a run of a few milliseconds of virtual time that only proves the harness works).

use std::fmt::Write;
use std::time::{Duration, Instant};

use balancing::{Load, Micros, Policy, Report, simulate, skewed, uniform};

/// The seed's handler: a first step, then 0 to 10 awaited steps of 10 µs.
const BASE: Micros = 10;
const STEP: Micros = 10;
const MAX_AWAITS: u64 = 10;
/// Uniform work has the skewed work's mean: 5 awaited steps per request.
const UNIFORM_AWAITS: u64 = 5;
const SEED: u64 = 18;
const CORES: [usize; 4] = [2, 8, 16, 64];

/// The seed's wrk load, and one below saturation.
struct LoadKind {
    name: &'static str,
    label: &'static str,
    connections: fn(usize) -> usize,
    gap: Micros,
}

const LOADS: [LoadKind; 2] = [
    LoadKind {
        name: "saturated",
        label: "800 connections, 50 µs between a response and the next request (the seed's wrk -c800)",
        connections: |_| 800,
        gap: 50,
    },
    LoadKind {
        name: "light",
        label: "16 connections per core, 1 ms between a response and the next request",
        connections: |cores| 16 * cores,
        gap: 1_000,
    },
];

fn policy_name(policy: Policy) -> &'static str {
    match policy {
        Policy::PerConnection => "per-connection",
        Policy::WorkStealing => "work-stealing",
    }
}

/// One report as a JSON object's fields (without braces).
fn fields(r: &Report, cores: usize, duration: Micros) -> String {
    let idle_permille = r.idle_while_waiting * 1000 / (cores as u64 * duration);
    format!(
        "\"throughput\": {}, \"p50_us\": {}, \"p99_us\": {}, \"max_us\": {}, \
         \"completed\": {}, \"migrations\": {}, \"idle_while_waiting_permille\": {}",
        r.throughput,
        r.p50(),
        r.p99(),
        r.max(),
        r.completed,
        r.migrations,
        idle_permille
    )
}

fn main() {
    let smoke = std::env::args().any(|arg| arg == "--smoke");
    // Virtual time per run: long enough for thousands of requests in every row.
    let duration: Micros = if smoke { 20_000 } else { 1_000_000 };
    let mut out = String::new();
    let policies = [Policy::PerConnection, Policy::WorkStealing];
    writeln!(out, "{{").unwrap();
    writeln!(
        out,
        "  \"model\": {{\"base_us\": {BASE}, \"step_us\": {STEP}, \"max_awaits\": {MAX_AWAITS}, \
         \"uniform_awaits\": {UNIFORM_AWAITS}, \"seed\": {SEED}, \"duration_us\": {duration}}},"
    )
    .unwrap();
    let loads: Vec<String> = LOADS
        .iter()
        .map(|l| {
            format!(
                "    {{\"name\": \"{}\", \"label\": \"{}\", \"gap_us\": {}}}",
                l.name, l.label, l.gap
            )
        })
        .collect();
    writeln!(out, "  \"loads\": [\n{}\n  ],", loads.join(",\n")).unwrap();

    // The sweep: every load, work, core count and policy.
    let mut rows = Vec::new();
    for load_kind in &LOADS {
        for work in ["uniform", "skewed"] {
            for cores in CORES {
                for policy in policies {
                    let load = Load {
                        cores,
                        connections: (load_kind.connections)(cores),
                        gap: load_kind.gap,
                        duration,
                        trace: false,
                    };
                    let report = if work == "uniform" {
                        simulate(policy, &load, uniform(BASE, UNIFORM_AWAITS, STEP))
                    } else {
                        simulate(policy, &load, skewed(SEED, BASE, MAX_AWAITS, STEP))
                    };
                    eprintln!(
                        "{:9} {work:7} {cores:2} cores {:14} {:>9} req/s  p99 {:>6} µs",
                        load_kind.name,
                        policy_name(policy),
                        report.throughput,
                        report.p99()
                    );
                    rows.push(format!(
                        "    {{\"load\": \"{}\", \"work\": \"{work}\", \"cores\": {cores}, \
                         \"connections\": {}, \"policy\": \"{}\", {}}}",
                        load_kind.name,
                        load.connections,
                        policy_name(policy),
                        fields(&report, cores, duration)
                    ));
                }
            }
        }
    }
    writeln!(out, "  \"rows\": [\n{}\n  ],", rows.join(",\n")).unwrap();

    // The seed's skewed run on 8 threads, modelled. Its sleeps have no await point, so a
    // request is one blocking chunk; and a 10 µs sleep lasted longer than 10 µs. Calibrate
    // that one number on the seed's own throughput: 8 threads at 21,986 req/s spend
    // 8 / 21,986 s = 364 µs per request, i.e. (364 - 10) / 5 = 71 µs per sleep.
    let per_request = 8_000_000.0 / 21_986.0;
    let sleep = ((per_request - BASE as f64) / UNIFORM_AWAITS as f64).round() as Micros;
    let seed_load = Load {
        cores: 8,
        connections: 800,
        gap: 50,
        duration: 10 * duration,
        trace: false,
    };
    let mut seed_rows = Vec::new();
    for (variant, label, chunked) in [
        (
            "as-run",
            "one blocking chunk per request (no await point), 71 µs per sleep",
            true,
        ),
        (
            "as-intended",
            "a 10 µs step, then 0 to 10 awaited steps of 71 µs",
            false,
        ),
    ] {
        for policy in policies {
            let work = skewed(SEED, BASE, MAX_AWAITS, sleep);
            let report = if chunked {
                simulate(policy, &seed_load, |c, r| vec![work(c, r).iter().sum()])
            } else {
                simulate(policy, &seed_load, work)
            };
            seed_rows.push(format!(
                "      {{\"variant\": \"{variant}\", \"label\": \"{label}\", \"policy\": \"{}\", {}}}",
                policy_name(policy),
                fields(&report, 8, seed_load.duration)
            ));
        }
    }
    writeln!(
        out,
        "  \"seed_model\": {{\"cores\": 8, \"connections\": 800, \"gap_us\": 50, \
         \"duration_us\": {}, \"sleep_us\": {sleep}, \"rows\": [\n{}\n    ]}},",
        seed_load.duration,
        seed_rows.join(",\n")
    )
    .unwrap();

    // Measured here, not simulated: how long a 10 µs thread::sleep lasts.
    let slack = std::fs::read_to_string("/proc/self/timerslack_ns")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let mut slept: Vec<u128> = (0..if smoke { 50 } else { 2000 })
        .map(|_| {
            let start = Instant::now();
            std::thread::sleep(Duration::from_micros(10));
            start.elapsed().as_nanos()
        })
        .collect();
    slept.sort_unstable();
    let at = |per_mille: usize| slept[slept.len() * per_mille / 1000] / 1000;
    writeln!(
        out,
        "  \"sleep_10us\": {{\"samples\": {}, \"timer_slack_ns\": {}, \"min_us\": {}, \
         \"p50_us\": {}, \"p90_us\": {}}}",
        slept.len(),
        slack.map_or("null".to_owned(), |s| s.to_string()),
        slept[0] / 1000,
        at(500),
        at(900)
    )
    .unwrap();
    writeln!(out, "}}").unwrap();
    print!("{out}");
}
