"""Chapter 20: a sharded store vs a shared Mutex<HashMap> vs DashMap, uniform and skewed keys."""

import json
import os
import statistics

from .common import BenchError, bar_chart, ceiling, folded, generated_by, measured_on, ratio_cell, table

NAME = "sharded"
DATA = "src/part4/data"
ROUNDS = 7
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/benches/benches/sharded.rs", "solutions/benches/src", "solutions/20-sharded-store/src"]

# What every round runs, in rotating order: (variant, keys, work in ns per operation).
VARIANTS = [
    ("sharded", "sharded store"),
    ("mutex", "Mutex<HashMap>"),
    ("dashmap", "DashMap"),
    ("mutex-local", "Mutex<HashMap> on local runtimes"),
    ("sharded-local", "sharded, local keys only"),
    ("sharded-remote", "sharded, remote keys only"),
]
CHART_LABELS = {"mutex": "Mutex, work-stealing", "mutex-local": "Mutex, local runtimes"}
KEYS = [("uniform", "uniform keys"), ("zipf", "Zipf keys (s = 0.99)")]
WORKS = [0, 2000]
BATCHES = [1, 4, 16, 64]
POLICIES = ["wait", "shed"]
BASELINE = "mutex"
# Calls per client per run (16 clients per thread): a run lasts a fraction of a second.
# SHARDED_OPS overrides it (the "run" line of the data says what was used).
OPS_DEFAULT = 20000
OPS, SMOKE_OPS = int(os.environ.get("SHARDED_OPS", OPS_DEFAULT)), 300


def configs():
    out = [("run", v, k, w) for w in WORKS for k, _ in KEYS for v, _ in VARIANTS]
    out += [("hop", b, None, None) for b in BATCHES]
    return out + [("overload", p, None, None) for p in POLICIES]


def run(ctx):
    """Each round runs every configuration once, in an order that rotates from round to
    round (solutions/benches/benches/sharded.rs, one process per configuration); ratios are
    taken within a round. Then, once: the mutex's uncontended serial section, and the share
    of calls the busiest shard gets for 2 to 64 shards."""
    exe = ctx.cargo_bench("sharded")
    env = dict(os.environ, SHARDED_OPS=str(SMOKE_OPS if ctx.smoke else OPS))

    def line(args, save_as):
        text = ctx.output([exe, *args], save_as=save_as, env=env)
        try:
            return [json.loads(l) for l in text.splitlines() if l.startswith("{")]
        except ValueError as e:
            raise BenchError("the benchmark printed no JSON for %s (%s; see %s)" % (args, e, ctx.scratch))

    rounds = []
    for r, config in ctx.rotations(configs()):
        if len(rounds) <= r:
            rounds.append([])
        kind, a, b, c = config
        args = [kind, str(a)] if kind in ("hop", "overload") else [a, b, str(c)]
        ctx.say("round %d/%d: %s" % (r + 1, ctx.rounds, " ".join(args)))
        found = line(args, "r%03d-%s.json" % (r, "-".join(args)))
        rounds[r] += found
    serial = line(["serial"], "serial.json")[0]
    shares = line(["shares"], "shares.json")
    return {"benchmark": NAME, "command": ctx.command,
            "run": "cargo bench -p benches --bench sharded -- VARIANT KEYS WORK_NS (or hop BATCH, serial, shares), "
                   "SHARDED_OPS=%s" % env["SHARDED_OPS"],
            "rounds": ctx.rounds, "clients_per_thread": 16, "keys": 100000, "put_share": 0.1,
            "machine": ctx.machine, "results": rounds, "serial": serial, "shares": shares}


# --- the chart ---------------------------------------------------------------------------------

def runs(data, variant, keys, work):
    return [next(x for x in r if x["variant"] == variant and x.get("keys") == keys and x.get("work_ns") == work)
            for r in data["results"]]


def hops(data, batch):
    return [next(x for x in r if x["variant"] == "hop" and x["batch"] == batch) for r in data["results"]]


def threads_of(data):
    return next(x["threads"] for r in data["results"] for x in r if "threads" in x)


def overloads(data, policy):
    return [next(x for x in r if x["variant"] == "overload" and x["policy"] == policy) for r in data["results"]]


def med(rows, field):
    return statistics.median(x[field] for x in rows)


def ratio(rows, base, field="ops_per_sec"):
    """The median of the rounds' ratios, and their range (inconclusive when it straddles 1)."""
    return ratio_cell([a[field] / b[field] for a, b in zip(rows, base)])


def us(ns):
    return "%.1f" % (ns / 1000) if ns < 100000 else "%.0f" % (ns / 1000)


def model(data):
    """Ops/s at 2, 8, 16 and 64 cores, from this run's medians (see the note under the table)."""
    threads = threads_of(data)
    rows = []
    shares = {(s["keys"], s["shards"]): s["busiest"] for s in data["shares"]}
    for work in WORKS:
        local = med(runs(data, "sharded-local", "uniform", work), "ops_per_sec") / threads
        remote = med(runs(data, "sharded-remote", "uniform", work), "ops_per_sec") / threads
        mutex_2 = med(runs(data, "mutex", "uniform", work), "ops_per_sec")
        serial_ns = data["serial"]["ns_per_op"] + work
        for keys in ("uniform", "zipf"):
            for n in (2, 8, 16, 64):
                # Core-seconds per call: a local call costs 1/local, a remote one 1/remote;
                # (n-1)/n of the calls are remote. The busiest shard sets the pace.
                per_call = 1 / local + (n - 1) / n * (1 / remote - 1 / local)
                even = n / per_call
                skew = (1 / n) / shares[(keys, n)]
                sharded = even * min(1.0, skew)
                mutex = min(mutex_2 / threads * n, 1e9 / serial_ns)
                rows.append((work, keys, n, sharded, mutex))
    return rows


def ratio_median(rows, base, field="ops_per_sec"):
    return statistics.median(a[field] / b[field] for a, b in zip(rows, base))


def summary(data):
    """The sentences the page's text points to, so that its numbers are this run's."""
    def vs(variant, keys, work):
        return ratio_median(runs(data, variant, keys, work), runs(data, BASELINE, keys, work))

    def p50(variant, keys, work):
        return med(runs(data, variant, keys, work), "get_p50_ns")

    out = []
    for keys, label in KEYS:
        out.append("- %s, bare lookups: the sharded store served %.2f× the calls of `Mutex<HashMap>` on "
                   "tokio's work-stealing runtime, DashMap %.2f×, the same `Mutex<HashMap>` on local runtimes "
                   "%.2f×; the sharded store with local keys only %.2f×, with remote keys only %.2f×. A get's "
                   "p50: %s µs under the mutex, %s µs local, %s µs remote."
                   % (label.capitalize(), vs("sharded", keys, 0), vs("dashmap", keys, 0), vs("mutex-local", keys, 0),
                      vs("sharded-local", keys, 0), vs("sharded-remote", keys, 0),
                      us(p50("mutex", keys, 0)), us(p50("sharded-local", keys, 0)),
                      us(p50("sharded-remote", keys, 0))))
    for keys, label in KEYS:
        out.append("- %s, %.0f µs of work per call: the sharded store served %.2f× the calls of "
                   "`Mutex<HashMap>`, DashMap %.2f×, `Mutex<HashMap>` on local runtimes %.2f×."
                   % (label.capitalize(), WORKS[1] / 1000, vs("sharded", keys, WORKS[1]), vs("dashmap", keys, WORKS[1]),
                      vs("mutex-local", keys, WORKS[1])))
    one = hops(data, 1)
    out.append("- The hop: batches of %s gets per message carried %s the gets per second of one get "
               "per message, while a round trip's p50 went from %s µs (one get) to %s µs (%d gets)."
               % (" / ".join(str(b) for b in BATCHES[1:]),
                  " / ".join("%.1f×" % ratio_median(hops(data, b), one, "calls_per_sec") for b in BATCHES[1:]),
                  us(med(one, "trip_p50_ns")), us(med(hops(data, BATCHES[-1]), "trip_p50_ns")), BATCHES[-1]))
    wait, shed = overloads(data, "wait"), overloads(data, "shed")
    out.append("- A full queue: waiting for room, every call was served, with a p50 of %s µs and a p99 of "
               "%s µs; shedding refused %.0f%% of the calls at once and served the rest with a p50 of %s µs "
               "and a p99 of %s µs."
               % (us(med(wait, "served_p50_ns")), us(med(wait, "served_p99_ns")),
                  100 * med(shed, "refused_share"), us(med(shed, "served_p50_ns")), us(med(shed, "served_p99_ns"))))
    return out


def chart(data):
    lines = [generated_by(NAME)]
    ops = int(data["run"].rsplit("SHARDED_OPS=", 1)[1])
    if data["rounds"] < ROUNDS or ops < OPS_DEFAULT:
        lines += ["", "> **Not yet measured properly.** These numbers come from a short run (%d round%s of "
                  "%d calls per client, load average %s as it began), kept so that the page builds. Run "
                  "`scripts/bench sharded` on a quiet machine for the real data: %d rounds of %d calls per "
                  "client." % (data["rounds"], "" if data["rounds"] == 1 else "s", ops,
                               data["machine"]["load_average"], ROUNDS, OPS_DEFAULT), ""]
    threads = threads_of(data)
    base = {(k, w): runs(data, BASELINE, k, w) for k, _ in KEYS for w in WORKS}

    # The bar chart: ops/s for every variant, uniform and Zipf, no extra work.
    labels, values = [], []
    for v, label in VARIANTS:
        for k, _ in KEYS:
            # mermaid would read <HashMap> as an HTML tag
            labels.append("%s, %s" % (CHART_LABELS.get(v, label), k))
            values.append(med(runs(data, v, k, 0), "ops_per_sec") / 1000)
    lines += bar_chart("Small calls (a map lookup): thousands of calls per second (more is better)",
                       labels, values, "thousand calls/s", ceiling(max(values), 100), "%.0f", horizontal=True)
    lines += [""]
    lines += ["In this run (medians of the rounds' ratios; the tables below have the ranges):", ""]
    lines += summary(data)
    lines += [""]

    for work in WORKS:
        title = ("**Small calls** (a map lookup, no extra work)" if work == 0 else
                 "**Calls with %.0f µs of work each**, spent under the lock (mutex), holding the map's shard "
                 "(DashMap) or on the owner's thread (sharded)" % (work / 1000))
        heading = (title + ": median of %d rounds, %d threads, %d clients per thread." %
                   (data["rounds"], threads, data["clients_per_thread"]))
        body = []
        for k, klabel in KEYS:
            for v, label in VARIANTS:
                rows = runs(data, v, k, work)
                shown = "`%s`" % label if "<" in label else label
                body.append(["%s, %s" % (shown, klabel), format(round(med(rows, "ops_per_sec"), -3), ",.0f"),
                             ratio(rows, base[(k, work)]),
                             us(med(rows, "get_p50_ns")), us(med(rows, "get_p99_ns")),
                             us(med(rows, "put_p50_ns")), us(med(rows, "put_p99_ns"))])
        lines += folded(heading.replace("**", ""),
                        table(["Variant", "calls/s", "vs `Mutex<HashMap>`¹", "get p50 µs", "get p99 µs",
                               "put p50 µs", "put p99 µs"], body))
        lines += [""]

    # The hop, batched.
    one = hops(data, 1)
    body = []
    for b in BATCHES:
        rows = hops(data, b)
        body.append([str(b), format(round(med(rows, "calls_per_sec"), -3), ",.0f"),
                     ratio(rows, one, "calls_per_sec"), us(med(rows, "trip_p50_ns")), us(med(rows, "trip_p99_ns"))])
    lines += ["**The hop, batched**: 16 clients on one thread send requests of N gets each to an owner "
              "thread (a bounded queue there, a oneshot back).", ""]
    lines += table(["gets per message", "gets/s", "vs 1 per message¹", "round trip p50 µs",
                    "round trip p99 µs"], body)
    lines += [""]

    # Wait or shed.
    body = []
    for policy in POLICIES:
        rows = overloads(data, policy)
        body.append([policy, "%.0f%%" % (100 * med(rows, "refused_share")), us(med(rows, "served_p50_ns")),
                     us(med(rows, "served_p99_ns"))])
    lines += ["**A full queue, wait or shed**: 64 callers on one thread, an owner thread that spends 2 µs "
              "on each call, a queue of 16. Wait: `send().await`. Shed: `try_send`, and a refused call is "
              "answered at once (a 503) while its caller goes on to its next call. Served calls are timed "
              "from the moment they were offered.", ""]
    lines += table(["policy", "refused", "served p50 µs", "served p99 µs"], body)
    lines += [""]

    # The model.
    body = []
    for work, keys, n, sharded, mutex in model(data):
        body.append(["%s µs" % (work // 1000) if work else "none", keys, str(n),
                     format(round(sharded, -3), ",.0f"), format(round(mutex, -3), ",.0f"),
                     "%.2f×" % (sharded / mutex)])
    lines += folded("A model for more cores (not measured: computed from this run, see ²)",
                    table(["Work", "Keys", "Cores", "sharded calls/s", "`Mutex<HashMap>` calls/s",
                           "sharded / mutex"], body))
    shares = {(s["keys"], s["shards"]): s for s in data["shares"]}
    lines += [
        "",
        "¹ The median of the %d rounds' ratios, with their range: in each round every configuration ran "
        "once, in an order that rotated from round to round, and a ratio compares two runs of the same "
        "round." % data["rounds"],
        "",
        "² Sharded: a call costs a core 1/r of a second, with r the calls per second per thread measured "
        "with local keys only, or with remote keys only; with n shards, (n−1)/n of the calls are remote. "
        "The busiest shard sets the pace: with Zipf keys it gets %.1f%% of the calls at 8 shards and %.1f%% "
        "at 64 (the hottest key alone: %.1f%%), against 1/n for an even spread. Mutex: every core runs its "
        "clients at the rate measured here, until the lock is busy all the time: at most one call per "
        "serial section, %.0f ns uncontended (measured on one thread) plus the work. That is the mutex's "
        "best case: on a real many-core machine, handing the lock and the map's cache lines from core to "
        "core makes the section longer. DashMap is not modelled."
        % (100 * shares[("zipf", 8)]["busiest"], 100 * shares[("zipf", 64)]["busiest"],
           100 * shares[("zipf", 8)]["hottest_key"], data["serial"]["ns_per_op"]),
        "",
        "Every call is timed on its caller, from the call to its answer. Clients: closed loops, each call "
        "followed by a yield; one call in ten is a put; %d keys, all present. The sharded store is lab 20's, "
        "one shard per thread, its 16 clients per thread in one `FuturesUnordered`; the mutex and DashMap runs use "
        "%d `tokio::spawn`ed tasks on a multi-thread runtime with %d workers, and the mutex on local runtimes "
        "runs its clients exactly as the sharded store does. Run: `%s`."
        % (data["keys"], 16 * threads, threads, data["run"]),
        "",
        measured_on(data),
        "",
    ]
    return "\n".join(lines)
