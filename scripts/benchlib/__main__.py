"""scripts/bench's command line: run benchmarks, check charts, smoke-test the harness."""

import importlib
import os
import pkgutil
import sys
from pathlib import Path

from . import common
from .common import ROOT, BenchError, say

USAGE = """usage: scripts/bench [NAME...]     run the named benchmarks (all if none), rewrite their data
       scripts/bench --check        rebuild every chart from its committed JSON; fail if a committed
                                    chart differs, or if a benchmark's data is older than its code
                                    (SOURCES) or the pinned toolchain (runs no benchmark; scripts/test
                                    runs this)
       scripts/bench --stale        only the second half: which data is older than its code
       scripts/bench --charts       rewrite every chart from its committed JSON (after changing
                                    how a benchmark draws its chart; runs no benchmark)
       scripts/bench --smoke NAME…  run tiny versions into a temporary folder, render their charts,
                                    commit nothing (scripts/test runs this for some)
       scripts/bench --list         the benchmarks and what they measure

A benchmark NAME writes DATA/NAME.json (numbers and the machine) and DATA/NAME-chart.md (a
mermaid chart and a table generated from the JSON, which the page includes). Variants are
measured in one invocation, in rounds whose order rotates, so comparisons never mix runs made
at different times. BENCH_ROUNDS sets the number of rounds (each benchmark has its default).
A run refuses to start when the load average is above 0.5, and writes nothing when other
processes used more than half a core meanwhile: benchmarks are measured on a quiet machine,
one at a time (BENCH_ALLOW_BUSY=1 overrides; the data records the load either way).
The harness: scripts/benchlib/ (common.py, and one module per benchmark)."""


def benchmarks():
    """Every module of this package but the shared ones, by NAME, in file order."""
    found = {}
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name in ("common", "__main__"):
            continue
        module = importlib.import_module("." + info.name, __package__)
        for attr in ("NAME", "DATA", "ROUNDS", "SOURCES", "run", "chart"):
            if not hasattr(module, attr):
                sys.exit("scripts/benchlib/%s.py has no %s (see common.py)" % (info.name, attr))
        if module.NAME.replace("-", "_") != info.name:
            sys.exit("scripts/benchlib/%s.py: NAME %r should be its file name with - for _"
                     % (info.name, module.NAME))
        found[module.NAME] = module
    return found


def paths(module, folder=None):
    folder = Path(folder) if folder else ROOT / module.DATA
    return folder / (module.NAME + ".json"), folder / (module.NAME + "-chart.md")


def run(module, smoke=False):
    rounds = int(os.environ.get("BENCH_ROUNDS") or (1 if smoke else module.ROUNDS))
    scratch = common.scratch_dir()
    try:
        if not smoke:
            common.refuse_if_busy(module.NAME)
        ctx = common.Run(module.NAME, rounds, smoke, scratch)
        if not smoke and ctx.machine.get("load_average") not in (None, "unknown"):
            say("%s: %d rounds, load average %s" % (module.NAME, rounds, ctx.machine["load_average"]))
        with common.QuietWatch() as watch:
            data = module.run(ctx)
        if not smoke:
            data["provenance"] = common.provenance(module)
            data["machine"]["others_max_cores"] = round(watch.others_max, 2)
            if watch.others_max > common.BUSY_CORES and os.environ.get("BENCH_ALLOW_BUSY") != "1":
                raise BenchError(
                    "%s: other processes used %.2f cores during the run (more than %.1f): the "
                    "numbers are not written; measure again on a quiet machine (BENCH_ALLOW_BUSY=1 "
                    "writes them anyway)" % (module.NAME, watch.others_max, common.BUSY_CORES))
        json_path, chart_path = paths(module, scratch if smoke else None)
        json_path.parent.mkdir(parents=True, exist_ok=True)
        common.write_json(json_path, data)
        # The chart is rendered from the file just written, exactly as --check will.
        chart_path.write_text(module.chart(common.read_json(json_path)))
        print(chart_path.read_text())
        if smoke:
            say("%s smoke: ok (ran %d round%s; wrote nothing to the repository)"
                % (module.NAME, rounds, "" if rounds == 1 else "s"))
        else:
            say("wrote %s and %s" % (json_path.relative_to(ROOT), chart_path.relative_to(ROOT)))
    finally:
        common.remove(scratch)


def stale(all_benchmarks):
    """The benchmarks whose committed data is older than their code or the pinned toolchain."""
    found = []
    for name, module in all_benchmarks.items():
        json_path, _ = paths(module)
        if json_path.exists():
            why = common.staleness(module, common.read_json(json_path))
            if why:
                found.append((name, why))
    return found


def staleness_self_test(all_benchmarks):
    """Proves the freshness check can fail: data with no provenance, with another hash of
    the sources, or from another toolchain is stale; data recorded from the code as it is
    now is not."""
    module = next(iter(all_benchmarks.values()))
    now = common.provenance(module)
    assert common.staleness(module, {"provenance": now}) is None
    assert common.staleness(module, {})
    assert common.staleness(module, {"provenance": dict(now, sha256="0" * 64)})
    assert common.staleness(module, {"provenance": dict(now, toolchain="rustc 1.0.0")})
    print("bench: self-test: data with no provenance, older code or another toolchain is caught")


def check(all_benchmarks, rewrite=False, freshness=True):
    bad, checked, pending = False, [], []
    if freshness:
        staleness_self_test(all_benchmarks)
        for name, why in stale(all_benchmarks):
            print("%s's data is stale: %s. Run scripts/bench %s on a quiet machine."
                  % (name, why, name), file=sys.stderr)
            bad = True
    for name, module in all_benchmarks.items():
        json_path, chart_path = paths(module)
        if not json_path.exists():
            pending.append(name)  # harness committed, data not yet: nothing to check
            continue
        want = module.chart(common.read_json(json_path))
        have = chart_path.read_text() if chart_path.exists() else None
        if rewrite and want != have:
            chart_path.write_text(want)
            say("rewrote %s" % chart_path.relative_to(ROOT))
        elif want != have:
            print("%s is not what scripts/bench generates from %s"
                  % (chart_path.relative_to(ROOT), json_path.relative_to(ROOT)), file=sys.stderr)
            bad = True
        checked.append(name)
    if not bad:
        print("charts match their data: %s" % " ".join(checked))
    if pending:
        print("no data committed yet (run scripts/bench NAME): %s" % " ".join(pending))
    return 1 if bad else 0


def main(argv):
    all_benchmarks = benchmarks()
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if argv[:1] == ["--list"]:
        for name, module in all_benchmarks.items():
            print("%-12s %s" % (name, (module.__doc__ or "").strip().splitlines()[0]))
        return 0
    if argv[:1] == ["--check"]:
        # BENCH_CHECK_FRESH=0: the charts only (while a benchmark's code is being changed).
        return check(all_benchmarks, freshness=os.environ.get("BENCH_CHECK_FRESH") != "0")
    if argv[:1] == ["--charts"]:
        return check(all_benchmarks, rewrite=True, freshness=False)
    if argv[:1] == ["--stale"]:
        found = stale(all_benchmarks)
        for name, why in found:
            print("%s: %s" % (name, why))
        return 1 if found else 0
    smoke = argv[:1] == ["--smoke"]
    names = argv[1:] if smoke else argv
    if smoke and not names:
        sys.exit("--smoke needs a benchmark NAME (known: %s)" % " ".join(all_benchmarks))
    for name in names:
        if name not in all_benchmarks:
            sys.exit("error: unknown benchmark '%s' (known: %s; or --check, --charts, --smoke, --list)"
                     % (name, " ".join(all_benchmarks)))
    try:
        for name in names or all_benchmarks:
            run(all_benchmarks[name], smoke)
    except BenchError as e:
        sys.exit("error: %s" % e)
    return 0


sys.exit(main(sys.argv[1:]))
