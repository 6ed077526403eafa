"""Chapter 15: 1000 small jobs with spawn + Arc, with joins and with scopes."""

import re
import statistics

from .common import (BenchError, bar_chart, ceiling, divan_row, generated_by, measured_on, parse_divan,
                     ratio_cell, ratio_note, round_ratios, table)

NAME = "fan-out"
DATA = "src/part3/data"
ROUNDS = 21
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/benches/benches/fan_out.rs", "solutions/benches/src", "solutions/13-local-scope/src"]

VARIANTS = [("spawn_multi_thread", "spawn + Arc, 2 workers, from block_on"),
            ("spawn_in_task", "spawn + Arc, 2 workers, in a task"),
            ("spawn_current_thread", "spawn + Arc, 1 thread"),
            ("join_all", "join_all"), ("futures_unordered", "FuturesUnordered"),
            ("moro_scope", "async_scope!"), ("own_scope", "lab 13 scope")]
BASELINE = "futures_unordered"
# One sample is one whole fan-out (about a millisecond), long enough for the timer.
DIVAN_ARGS = ["--bench", "--color", "never", "--sample-count", "200", "--sample-size", "1"]


def run(ctx):
    """Each round runs the variants back to back (solutions/benches/benches/fan_out.rs), each
    for 200 samples of one fan-out; every process also prints the allocations and the peak
    heap of single fan-outs of every variant (`fan-out-memory NAME COUNT PEAK`), counted on
    all threads."""
    args = list(DIVAN_ARGS)
    if ctx.smoke:
        args[args.index("200")] = "10"
    exe = ctx.cargo_bench("fan_out")
    names = [name for name, _ in VARIANTS]
    times = {name: [] for name in names}
    memory = {name: [] for name in names}
    jobs = None
    for r, name in ctx.rotations(names):
        ctx.say("round %d/%d: %s" % (r + 1, ctx.rounds, name))
        text = ctx.output([exe, *args, "--exact", "fan_out::" + name], save_as="r%03d-%s.txt" % (r, name))
        found, _ = parse_divan(text, names)
        if name not in found:
            raise BenchError("no result for %s in the benchmark's output (see %s)" % (name, ctx.scratch))
        print(divan_row(text, name))
        times[name].append(found[name]["ns"])
        for variant, count, peak in re.findall(r"^fan-out-memory (\w+) (\d+) (\d+)$", text, re.M):
            memory[variant].append((int(count), int(peak)))
        jobs = jobs or int(re.search(r"^fan-out-jobs (\d+)$", text, re.M).group(1))
    variants = []
    for name, label in VARIANTS:
        per_job = [t / jobs for t in times[name]]
        ns = statistics.median(per_job)
        counts = [c for c, _ in memory[name]]
        peaks = [p for _, p in memory[name]]
        variants.append({"name": name, "label": label,
                         "ns_per_job": round(ns, 1), "jobs_per_second": round(1e9 / ns),
                         "allocs_per_job": round(statistics.median(counts) / jobs, 3),
                         "allocs_range": [min(counts), max(counts)],
                         "peak_bytes": int(statistics.median(peaks)),
                         "peak_bytes_range": [min(peaks), max(peaks)],
                         "rounds_ns_per_job": [round(x, 1) for x in per_job]})
    return {"benchmark": NAME, "command": ctx.command,
            "run": "cargo bench -p benches --bench fan_out -- %s --exact fan_out::VARIANT" % " ".join(args),
            "rounds": ctx.rounds, "jobs": jobs,
            "memory_passes": min(len(memory[name]) for name in names),
            "machine": ctx.machine, "variants": variants}


def spawn_sites(rows):
    """One generated line comparing where the multi-thread fan-out starts (the page reads it)."""
    by_name = {r["name"]: r for r in rows}
    if not {"spawn_in_task", "spawn_multi_thread", "spawn_current_thread"} <= set(by_name):
        return []
    task = by_name["spawn_in_task"]["rounds_ns_per_job"]

    def vs(name):
        return statistics.median(round_ratios(task, by_name[name]["rounds_ns_per_job"]))

    return ["", "Started inside a task, the multi-thread fan-out took %.2f× the time of the same fan-out "
            "started from `block_on`, and %.2f× the time of the spawns on one thread (medians of the "
            "rounds' ratios)." % (vs("spawn_multi_thread"), vs("spawn_current_thread"))]


def chart(data):
    rows, jobs = data["variants"], data["jobs"]
    lines = [generated_by(NAME)]
    ways = {6: "six", 7: "seven", 8: "eight"}.get(len(rows), str(len(rows)))
    lines += bar_chart("%d small jobs %s ways: median ns per job (shorter is better)" % (jobs, ways),
                       [r["label"] for r in rows], [r["ns_per_job"] for r in rows], "ns per job",
                       ceiling(max(r["ns_per_job"] for r in rows), 100), "%.0f", horizontal=True)
    base_row = [r for r in rows if r["name"] == BASELINE][0]
    body, medians = [], []
    for r in rows:
        ratios = round_ratios(r["rounds_ns_per_job"], base_row["rounds_ns_per_job"])
        medians.append((r["label"], r["ns_per_job"], base_row["ns_per_job"], statistics.median(ratios)))
        body.append([r["label"], "%.0f" % r["ns_per_job"], ratio_cell(ratios),
                     format(round(r["jobs_per_second"], -3), ",.0f"), "%.2f" % r["allocs_per_job"],
                     "%.0f bytes" % (r["peak_bytes"] / jobs)])
    lines += [""]
    lines += table(["Variant", "ns per job", "vs %s¹" % base_row["label"], "jobs per second",
                    "allocations per job", "peak heap per job"], body)

    def spread(r):
        return "%s %.0f–%.0f" % (r["label"], min(r["rounds_ns_per_job"]), max(r["rounds_ns_per_job"]))

    lines += [
        "",
        "One fan-out runs %d jobs and adds up their results; every runtime is built before "
        "the timed region. Time: the median of %d rounds, the variants running back to back "
        "in each round in rotating order; the rounds' own medians ranged over %s ns per job. "
        "Allocations and peak heap: calls to the allocator (including reallocations) and "
        "the most bytes live at once during one fan-out, on every thread, divided by the "
        "number of jobs; medians of %d fan-outs per variant."
        % (jobs, data["rounds"], "; ".join(spread(r) for r in rows), data["memory_passes"]),
        "",
        ratio_note(data["rounds"], base_row["label"], [m for m in medians if m[0] != base_row["label"]], "%.0f"),
    ]
    lines += spawn_sites(rows)
    lines += [
        measured_on(data),
        "",
    ]
    return "\n".join(lines)
