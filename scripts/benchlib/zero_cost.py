"""Chapter 5: one job as a hand-written Future, as combinators and as async/await."""

import statistics

from .common import (BenchError, bar_chart, ceiling, generated_by, measured_on, parse_divan, ratio_cell,
                     ratio_note, round_ratios, table)

NAME = "zero-cost"
DATA = "src/part1/data"
ROUNDS = 31
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/benches/benches/zero_cost.rs", "solutions/benches/src"]

VARIANTS = [("hand_written", "hand-written"), ("combinators", "combinators"),
            ("async_await", "async/await")]
# A fixed sample size: divan's automatic one sometimes drops to 1 iteration per sample on a
# busy machine, which puts the timer's own cost into the result.
DIVAN_ARGS = ["--bench", "--color", "never", "--sample-count", "10000", "--sample-size", "64"]


def run(ctx):
    """Each round runs the three variants back to back (solutions/benches/benches/zero_cost.rs),
    each for 10000 samples of 64 iterations."""
    args = list(DIVAN_ARGS)
    if ctx.smoke:
        args[args.index("10000")] = "100"
    exe = ctx.cargo_bench("zero_cost")
    names = [name for name, _ in VARIANTS]
    ns = {name: [] for name in names}
    allocs = {name: [] for name in names}
    sizes = {}
    for r, name in ctx.rotations(names):
        ctx.say("round %d/%d: %s" % (r + 1, ctx.rounds, name))
        text = ctx.output([exe, *args, "--exact", "zero_cost::" + name], save_as="r%03d-%s.txt" % (r, name))
        print(text, end="")
        found, s = parse_divan(text, names)
        sizes.update(s)
        if name not in found:
            raise BenchError("no result for %s in divan's output" % name)
        ns[name].append(found[name]["ns"])
        allocs[name].append(found[name]["allocs"])
    base = ns["hand_written"]
    variants = []
    for name, label in VARIANTS:
        ratios = [a / b for a, b in zip(ns[name], base)]
        variants.append({"name": name, "label": label,
                         "ns_per_op": round(statistics.median(ns[name]), 2),
                         "ratio": round(statistics.median(ratios), 3),
                         "allocs_per_op": max(allocs[name]), "future_bytes": sizes[name],
                         "rounds_ns": [round(x, 2) for x in ns[name]]})
    return {"benchmark": NAME, "command": ctx.command,
            "run": "cargo bench -p benches --bench zero_cost -- %s --exact zero_cost::VARIANT" % " ".join(args),
            "rounds": ctx.rounds, "machine": ctx.machine, "variants": variants}


def chart(data):
    rows = data["variants"]
    lines = [generated_by(NAME)]
    lines += bar_chart("The same job three ways: median ns per op (lower is better)",
                       [r["label"] for r in rows], [r["ns_per_op"] for r in rows], "ns per op",
                       ceiling(max(r["ns_per_op"] for r in rows), 10))
    lines += [""]
    base = rows[0]["rounds_ns"]
    ratios = {r["name"]: round_ratios(r["rounds_ns"], base) for r in rows}
    # The table's ratio and the goal's percentage both come from the unrounded median of
    # the rounds' ratios (the JSON's "ratio" is rounded: 1.615 printed as 1.61× beside +62%).
    exact = {name: statistics.median(rs) for name, rs in ratios.items()}
    lines += table(["Variant", "ns per op", "vs hand-written¹", "allocations per op", "future size"],
                   [[r["label"], "%.1f" % r["ns_per_op"], ratio_cell(ratios[r["name"]], exact[r["name"]]),
                     "%g" % r["allocs_per_op"], "%d bytes" % r["future_bytes"]] for r in rows])

    def verdict(r):
        ratio = exact[r["name"]]
        gap = "within ±5%" if abs(ratio - 1) <= 0.05 else "%+.0f%%, goal missed" % ((ratio - 1) * 100)
        alloc = "0 allocations" if r["allocs_per_op"] == 0 else "%g allocations, goal missed" % r["allocs_per_op"]
        return "%s %s (%s)" % (r["label"], gap, alloc)

    lines += [
        "",
        "Goal: within ±5%% of the hand-written version, with 0 allocations. Measured: %s."
        % "; ".join(verdict(r) for r in rows[1:]),
        "",
        "ns per op: the median of %d rounds. %s"
        % (data["rounds"], ratio_note(data["rounds"], "the hand-written version",
                                      [(r["label"], r["ns_per_op"], rows[0]["ns_per_op"], r["ratio"])
                                       for r in rows[1:]], "%.1f")),
        measured_on(data),
        "",
    ]
    return "\n".join(lines)
