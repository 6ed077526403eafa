"""Chapter 24: lateness of 10,000 timers of 20 ms on one thread: std Mutex, tokio Mutex + channel, two threads, RefCell, join_all."""

import re
import statistics

from .common import (BenchError, bar_chart, ceiling, generated_by, measured_on, ratio_cell, ratio_note,
                     round_ratios, table)

NAME = "timers"
DATA = "src/part5/data"
ROUNDS = 15
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/benches/benches/timers.rs", "solutions/benches/src"]

VARIANTS = [("std_mutex", "std Mutex in a sync callback"),
            ("tokio_mutex_channel", "tokio Mutex + channel"),
            ("two_threads", "two threads + channel"),
            ("refcell", "RefCell (a task per timer)"),
            ("join_all", "RefCell in one join_all"),
            ("join_all_unconstrained", "join_all without coop budget")]
BASELINE = "std_mutex"
TIMERS, SMOKE_TIMERS = 10_000, 500

# Quoted, not measured here: Adrien Zinger, "Asynchronous futures vs Synchronous locks in
# Rust" (2022): 10,000 timeouts of 20 ms started at once; his "medium value" of the time from
# creating a timeout to its callback (so 20 ms is on time: not lateness, which starts at 0).
SEED = [{"variant": "std Mutex taken briefly in a synchronous callback", "mean_ms": 45.1},
        {"variant": "\"fully async\": tokio::sync::Mutex and an mpsc channel", "mean_ms": 153},
        {"variant": "split over two threads with a huge channel", "mean_ms": 84}]


def run(ctx):
    """Each round runs every variant once, in rotating order, each in a fresh process
    (solutions/benches/benches/timers.rs): TIMERS timers of 20 ms on a fresh current-thread
    runtime, in real time; the process prints the lateness's mean, p50, p99 and max in µs."""
    exe = ctx.cargo_bench("timers")
    timers = SMOKE_TIMERS if ctx.smoke else TIMERS
    names = [name for name, _ in VARIANTS]
    runs = {name: [] for name in names}
    for r, name in ctx.rotations(names):
        text = ctx.output([exe, name, str(timers)], save_as="r%03d-%s.txt" % (r, name))
        found = re.search(r"^timers %s (\d+) (\d+) (\d+) (\d+) (\d+)$" % name, text, re.M)
        if not found:
            raise BenchError("no result line for %s (see %s)" % (name, ctx.scratch))
        count, mean, p50, p99, top = map(int, found.groups())
        if count != timers:
            raise BenchError("%s recorded %d timers, not %d" % (name, count, timers))
        ctx.say("round %d/%d: %-24s mean %6.2f ms, p99 %6.2f ms" % (r + 1, ctx.rounds, name, mean / 1e3, p99 / 1e3))
        runs[name].append({"mean_us": mean, "p50_us": p50, "p99_us": p99, "max_us": top})
    variants = []
    for name, label in VARIANTS:
        rounds = runs[name]
        variants.append({"name": name, "label": label,
                         **{key: statistics.median(r[key] for r in rounds)
                            for key in ("mean_us", "p50_us", "p99_us", "max_us")},
                         "rounds": rounds})
    return {"benchmark": NAME, "command": ctx.command,
            "run": "cargo bench -p benches --bench timers -- VARIANT %d" % timers,
            "timers": timers, "delay_ms": 20, "rounds": ctx.rounds,
            "machine": ctx.machine, "seed_quoted": SEED, "variants": variants}


def ms(us):
    return "%.1f" % (us / 1000)


def chart(data):
    rows = data["variants"]
    base = next(r for r in rows if r["name"] == BASELINE)
    lines = [generated_by(NAME)]
    top = max(r["mean_us"] for r in rows) / 1000
    lines += bar_chart("%s timers of %d ms on one thread: mean lateness in ms (lower is better)"
                       % (format(data["timers"], ","), data["delay_ms"]),
                       [r["label"] for r in rows], [r["mean_us"] / 1000 for r in rows], "mean lateness (ms)",
                       ceiling(top, 5), "%.1f", horizontal=True)
    body, medians = [], []
    for r in rows:
        ratios = round_ratios([x["mean_us"] for x in r["rounds"]], [x["mean_us"] for x in base["rounds"]])
        medians.append((r["label"], r["mean_us"] / 1000, base["mean_us"] / 1000, statistics.median(ratios)))
        means = [x["mean_us"] for x in r["rounds"]]
        body.append([r["label"], ms(r["mean_us"]), "%s–%s" % (ms(min(means)), ms(max(means))), ms(r["p50_us"]),
                     ms(r["p99_us"]), ms(r["max_us"]), ratio_cell(ratios)])
    lines += [""]
    lines += table(["Variant", "mean ms", "rounds' means", "p50 ms", "p99 ms", "max ms",
                    "mean vs %s¹" % base["label"]], body)
    ranked = sorted(rows, key=lambda r: r["mean_us"])
    lines += [
        "",
        "Lateness: when a timer's record was made, minus its deadline (its creation + %d ms). "
        "Each figure is the median over %d rounds of that round's statistic over %s timers; in each "
        "round every variant ran once, in a fresh process, in rotating order. From least to most late "
        "(mean): %s."
        % (data["delay_ms"], data["rounds"], format(data["timers"], ","),
           " < ".join(r["label"] for r in ranked)),
        "",
        ratio_note(data["rounds"], base["label"], [m for m in medians if m[0] != base["label"]], "%.1f"),
        measured_on(data),
        "",
        "**Quoted, not measured here**: Adrien Zinger's figures (2022), 10,000 timeouts of 20 ms started "
        "at once, on his machine: his \"medium value\" of the time from creating a timeout to its callback, "
        "so 20 ms is on time (lateness above starts at 0):",
        "",
    ]
    lines += table(["His variant", "creation to callback, ms"],
                   [[s["variant"], "%g" % s["mean_ms"]] for s in data["seed_quoted"]])
    lines += [""]
    return "\n".join(lines)
