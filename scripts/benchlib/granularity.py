"""Chapter 18: per-connection vs per-step balancing on 2-64 cores, simulated (lab 18's model)."""

import json

from .common import BenchError, bar_chart, ceiling, generated_by, table

NAME = "granularity"
DATA = "src/part4/data"
# The simulation is deterministic, so one round is the whole story; only the measured
# length of a 10 µs sleep varies between runs.
ROUNDS = 1
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/18-balancing/src", "solutions/18-balancing/examples/extrapolate.rs"]

RUN = "cargo run --release -p balancing-solution --example extrapolate"

# Quoted, not measured here: Evan Schwartz, "Async Rust can be a pleasure to work with
# (without Send + Sync + 'static)", Sep 2024; 16-vCPU machine, wrk on the same machine,
# 8 server threads, 800 connections, 2 minutes, hyper; every request runs 0 to 10 futures
# that each call std::thread::sleep(10 µs).
SEED = [
    {"server": "tokio work-stealing + hyper", "threads": 8, "req_s": 21986, "p99_ms": 86.8, "max_ms": 148.9},
    {"server": "glommio + hyper", "threads": 8, "req_s": 21674, "p99_ms": 43.0, "max_ms": 62.3},
]

POLICIES = [("per-connection", "per connection"), ("work-stealing", "work-stealing")]


def run(ctx):
    """Runs solutions/18-balancing/examples/extrapolate.rs once: the simulated rows are the
    same on every machine; the length of a real 10 µs sleep is this machine's."""
    exe = ctx.cargo_executable(["build", "--release", "-p", "balancing-solution", "--example", "extrapolate"],
                               "extrapolate")
    text = ctx.output([exe, *(["--smoke"] if ctx.smoke else [])], save_as="extrapolate.json")
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BenchError("the extrapolate example printed no JSON (%s; see %s)" % (e, ctx.scratch))
    return {"benchmark": NAME, "command": ctx.command,
            "run": RUN + (" -- --smoke" if ctx.smoke else ""),
            "machine": ctx.machine, "seed_quoted": SEED, **data}


def row(data, load, work, cores, policy):
    return next(r for r in data["rows"]
                if (r["load"], r["work"], r["cores"], r["policy"]) == (load, work, cores, policy))


def ratio(a, b):
    return "%.2f×" % (a / b) if b else "–"


def chart(data):
    cores = sorted({r["cores"] for r in data["rows"]})
    model, loads = data["model"], {l["name"]: l for l in data["loads"]}
    lines = [generated_by(NAME)]

    # The chart: where balancing matters (light load, skewed work), p99 by cores and policy.
    labels, values = [], []
    for n in cores:
        for policy, short in (("per-connection", "per conn."), ("work-stealing", "stealing")):
            labels.append("%d cores, %s" % (n, short))
            values.append(row(data, "light", "skewed", n, policy)["p99_us"])
    lines += bar_chart("Skewed work, light load: p99 in µs (lower is better)", labels, values,
                       "p99 (µs)", ceiling(max(values), 100), "%d", horizontal=True)
    lines += [""]

    # The tables: every load, work and core count.
    for load in ("light", "saturated"):
        lines += ["**%s load**: %s." % (load.capitalize(), loads[load]["label"]), ""]
        body = []
        for work in ("uniform", "skewed"):
            for n in cores:
                tpc = row(data, load, work, n, "per-connection")
                ws = row(data, load, work, n, "work-stealing")
                body.append([work, str(n), format(tpc["throughput"], ","), format(tpc["p99_us"], ","),
                             format(ws["throughput"], ","), format(ws["p99_us"], ","),
                             ratio(ws["throughput"], tpc["throughput"]), ratio(ws["p99_us"], tpc["p99_us"]),
                             "%.1f%%" % (tpc["idle_while_waiting_permille"] / 10)])
        lines += table(["Work", "Cores", "per conn. req/s", "per conn. p99 µs", "stealing req/s",
                        "stealing p99 µs", "req/s ratio", "p99 ratio", "idle while work waits¹"], body)
        lines += [""]

    # The seed's 8-core skewed run beside the model of it.
    seed = data["seed_model"]
    body = [[s["server"] + " (quoted)", format(s["req_s"], ","), "%.1f" % s["p99_ms"], "%.1f" % s["max_ms"]]
            for s in data["seed_quoted"]]
    for r in seed["rows"]:
        body.append(["model, %s: %s" % (r["policy"], r["label"]), format(r["throughput"], ","),
                     "%.1f" % (r["p99_us"] / 1000), "%.1f" % (r["max_us"] / 1000)])
    lines += ["**The seed's skewed run, 8 threads, and the model of it** (%d connections, %d µs "
              "between a response and the next request, each sleep taken to last %d µs):"
              % (seed["connections"], seed["gap_us"], seed["sleep_us"]), ""]
    lines += table(["Server", "req/s", "p99 ms", "max ms"], body)
    lines += [""]

    sleep = data["sleep_10us"]
    slack = sleep["timer_slack_ns"]
    lines += [
        "¹ Per connection: the share of core time a core sat idle while a step waited on "
        "another core's queue. Work-stealing leaves none (its lab test checks that on the trace).",
        "",
        "Simulated: each request is a %d µs step, then %d awaited steps of %d µs (uniform) or 0 to %d "
        "of them drawn per request from seed %d (skewed); a connection sends its next request a gap "
        "after each response (closed loop, like wrk); %d ms of virtual time per row (the seed's model: "
        "%d ms). The simulation is deterministic: the same numbers on any machine. Command: `%s` "
        "(runs `%s`)."
        % (model["base_us"], model["uniform_awaits"], model["step_us"], model["max_awaits"],
           model["seed"], model["duration_us"] // 1000, seed["duration_us"] // 1000,
           data["command"], data["run"]),
        "",
        "Measured, not simulated: `std::thread::sleep(Duration::from_micros(10))` lasted %d µs at the "
        "median (p90 %d µs, shortest %d µs; %d sleeps) with a timer slack of %s, on %s: %s, %d cores, "
        "load average %s as the run began, %s; %s."
        % (sleep["p50_us"], sleep["p90_us"], sleep["min_us"], sleep["samples"],
           "%d µs" % (slack // 1000) if slack is not None else "unknown",
           data["machine"]["date"], data["machine"]["cpu"], data["machine"]["cores"],
           data["machine"]["load_average"], data["machine"]["os"], data["machine"]["rustc"]),
        "",
    ]
    return "\n".join(lines)
