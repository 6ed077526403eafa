"""Chapter 23: the nested stream with no trait object, async-trait, Box<dyn Future> and lab 23's recycling box, on two allocators."""

import re
import statistics
import subprocess

from .common import (ROOT, BenchError, bar_chart, ceiling, divan_row, generated_by, measured_on,
                     parse_divan, ratio_cell, round_ratios, table)

NAME = "dyn-futures"
DATA = "src/part5/data"
ROUNDS = 15
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/benches/benches/dyn_futures.rs", "solutions/benches/benches/dyn_futures_jemalloc.rs", "solutions/benches/benches/common", "solutions/benches/src", "solutions/23-recycling-box/src"]

VARIANTS = [("no_trait", "no trait object"), ("async_trait", "async-trait"),
            ("boxed", "plain box"), ("recycled", "recycling box")]
# The same, for the table (markdown, where `<dyn …>` needs backticks).
TABLE_LABELS = {"no_trait": "no trait object", "async_trait": "async-trait (`?Send`)",
                "boxed": "plain box (`Box<dyn Future>`)", "recycled": "recycling box (lab 23)"}
BASELINE = "boxed"
# (bench target, label): the same code, with a different global allocator.
ALLOCATORS = [("dyn_futures", "system"), ("dyn_futures_jemalloc", "jemalloc")]
# One iteration drains a 50-item stream (about a microsecond): 64 iterations per sample.
DIVAN_ARGS = ["--bench", "--color", "never", "--sample-count", "2000", "--sample-size", "64"]

# The seed's figures (Matthias247, async_trait_experiments, readme.md, 2020): criterion,
# nested_stream_benches, time per iteration of a 50-item stream. Their "non recyclable
# DynamicFuture" is a Box behind a hand-made vtable, our `Box<dyn Future>`; their recycled
# DynamicFuture is the idea of our recycling box.
SEED = [("Windows", {"no_trait": 89.2, "async_trait": 5246, "boxed": 3273, "recycled": 1505}),
        ("Linux, jemalloc", {"no_trait": 89.9, "async_trait": 2371, "boxed": 1625, "recycled": 1549}),
        ("Linux, glibc malloc", {"no_trait": 89.7, "async_trait": 1397, "boxed": 1182, "recycled": 1512})]


def allocator_versions():
    """What 'system' and 'jemalloc' are on this machine: glibc's version (from ldd), and the
    jemalloc the bench links (tikv-jemalloc-sys's version in solutions/Cargo.lock)."""
    try:
        libc = subprocess.run(["ldd", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
        libc = "glibc " + libc.split()[-1] if "GLIBC" in libc.upper() else libc
    except (OSError, IndexError):
        libc = "unknown"
    lock = (ROOT / "solutions/Cargo.lock").read_text()
    found = re.search(r'name = "tikv-jemalloc-sys"\nversion = "([^"]+)"', lock)
    return {"system": "the system allocator (%s)" % libc,
            "jemalloc": "jemalloc (tikv-jemalloc-sys %s)" % (found.group(1).split("-")[0] if found else "?")}


def run(ctx):
    """Each round runs the four versions on both allocators back to back, eight processes
    in an order that rotates from round to round; each runs one version for 2000 samples of
    64 iterations (solutions/benches/benches/dyn_futures.rs and dyn_futures_jemalloc.rs)."""
    args = list(DIVAN_ARGS)
    if ctx.smoke:
        args[args.index("2000")] = "20"
    exes = {bench: ctx.cargo_bench(bench, ["jemalloc"] if "jemalloc" in bench else ())
            for bench, _ in ALLOCATORS}
    names = [name for name, _ in VARIANTS]
    runs = [(bench, name) for bench, _ in ALLOCATORS for name in names]
    times = {run: [] for run in runs}
    allocs = {run: [] for run in runs}
    for r, (bench, name) in ctx.rotations(runs):
        ctx.say("round %d/%d: %s %s" % (r + 1, ctx.rounds, bench, name))
        text = ctx.output([exes[bench], *args, "--exact", "%s::%s" % (bench, name)],
                          save_as="r%03d-%s-%s.txt" % (r, bench, name))
        found, _ = parse_divan(text, names)
        if name not in found:
            raise BenchError("no result for %s in %s's output (see %s)" % (name, bench, ctx.scratch))
        print(divan_row(text, name))
        times[(bench, name)].append(found[name]["ns"])
        allocs[(bench, name)].append(found[name]["allocs"])
    versions = allocator_versions()
    allocators = []
    for bench, label in ALLOCATORS:
        base = times[(bench, BASELINE)]
        variants = []
        for name, vlabel in VARIANTS:
            ns = times[(bench, name)]
            variants.append({"name": name, "label": vlabel,
                             "ns_per_iter": round(statistics.median(ns), 1),
                             "ratio_to_boxed": round(statistics.median(round_ratios(ns, base)), 3),
                             "allocs_per_iter": max(allocs[(bench, name)]),
                             "rounds_ns": [round(x, 1) for x in ns]})
        allocators.append({"name": label, "allocator": versions[label], "bench": bench,
                           "variants": variants})
    return {"benchmark": NAME, "command": ctx.command,
            "run": "cargo bench -p benches --bench BENCH -- %s --exact BENCH::VARIANT" % " ".join(args),
            "rounds": ctx.rounds, "items_per_iter": 50, "machine": ctx.machine,
            "allocators": allocators}


def chart(data):
    lines = [generated_by(NAME)]
    bars = [(a["name"], v) for a in data["allocators"] for v in a["variants"] if v["name"] != "no_trait"]
    lines += bar_chart("The nested stream: median ns per iteration (50 items; shorter is better)",
                       ["%s: %s" % (alloc, v["label"]) for alloc, v in bars],
                       [v["ns_per_iter"] for _, v in bars], "ns per iteration",
                       ceiling(max(v["ns_per_iter"] for _, v in bars), 500), "%.0f", horizontal=True)
    lines += [""]
    header = ["Version"]
    for a in data["allocators"]:
        header += ["%s: ns per iteration" % a["name"], "%s: vs plain box¹" % a["name"]]
    header += ["allocations per iteration"]
    rows = []
    by_name = [{v["name"]: v for v in a["variants"]} for a in data["allocators"]]
    for name, _ in VARIANTS:
        row = [TABLE_LABELS[name]]
        for variants in by_name:
            v, base = variants[name], variants[BASELINE]
            row += ["%.0f" % v["ns_per_iter"],
                    ratio_cell(round_ratios(v["rounds_ns"], base["rounds_ns"]), v["ratio_to_boxed"])]
        counts = sorted({"%g" % variants[name]["allocs_per_iter"] for variants in by_name})
        row += [" / ".join(counts)]
        rows.append(row)
    lines += table(header, rows)
    lines += ["", "The seed's figures, for comparison (Matthias247, async_trait_experiments, 2020; "
              "criterion, the same stream shape; their “non recyclable DynamicFuture” is our "
              "plain box, and their recyclable one the idea of ours):", ""]
    seed_rows = []
    for where, f in SEED:
        seed_rows.append([where] + ["%.0f" % f[name] for name, _ in VARIANTS]
                         + ["%.2f×" % (f["recycled"] / f["boxed"])])
    lines += table(["Seed, ns per iteration"] + [label for _, label in VARIANTS]
                   + ["recycling vs plain box"], seed_rows)
    ours = "; ".join("%s %.2f×" % (a["name"], {v["name"]: v for v in a["variants"]}["recycled"]["ratio_to_boxed"])
                     for a in data["allocators"])
    lines += [
        "",
        "Here, the recycling box against the plain box: %s (below 1× means recycling won)." % ours,
        "",
        "¹ The median of the rounds' ratios (%d rounds), with their range: in each round the eight "
        "runs (four versions, two allocators) went back to back, and a version's ratio is its time "
        "over the time of the plain box on the same allocator in the same round. Allocators: %s."
        % (data["rounds"], "; ".join(a["allocator"] for a in data["allocators"])),
        measured_on(data),
        "",
    ]
    return "\n".join(lines)
