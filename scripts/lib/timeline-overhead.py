"""What recording timelines costs: the tests of the labs that record (01-04 and 13), run
on their solutions with recording off and on (LABS_TRACE_DIR unset or set, as the runner
sets it), RUNS times each, one run at a time, off and on taking turns. Prints each
lab's median and range, and the total's, in seconds of wall-clock time and of CPU time
(user and system, of the test binaries: other work on a busy machine inflates the
first), and the medians' change.

    python3 scripts/lib/timeline-overhead.py [RUNS]     (5 by default; run it on a quiet machine)

It builds the test binaries first (cargo test --no-run, CARGO_TARGET_DIR honoured) and
times only their runs.
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ["countdown", "map-join-select", "block-on", "pipeline", "local-scope"]


def binaries():
    """Each lab's test binaries, built: {lab: [path, …]}."""
    cmd = ["cargo", "test", "--no-run", "--message-format=json"]
    for p in PACKAGES:
        cmd += ["-p", p + "-solution"]
    out = subprocess.run(cmd, cwd=os.path.join(ROOT, "solutions"), capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("cargo test --no-run failed:\n" + out.stderr)
    found = {p: [] for p in PACKAGES}
    for line in out.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["profile"]["test"]:
            # "path+file:///…/01-countdown#countdown-solution@0.1.0"
            package = msg["package_id"].rsplit("#", 1)[-1].split("@")[0]
            lab = package.removesuffix("-solution")
            if lab in found and msg["target"]["kind"] == ["test"]:
                found[lab].append(msg["executable"])
    return found


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(paths, trace):
    """Seconds to run `paths` one after the other, recording or not: (wall, CPU)."""
    env = dict(os.environ)
    env.pop("LABS_TRACE_DIR", None)
    with tempfile.TemporaryDirectory() as tmp:
        if trace:
            env["LABS_TRACE_DIR"] = tmp
        start, start_cpu = time.monotonic(), cpu()
        for path in paths:
            out = subprocess.run([path, "-q"], env=env, capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit("%s failed:\n%s%s" % (path, out.stdout, out.stderr))
        took = (time.monotonic() - start, cpu() - start_cpu)
        if trace and not any(f for _, _, f in os.walk(tmp)):
            sys.exit("recording on, but no timeline was written")
    return took


def main():
    runs = int(sys.argv[1]) if sys.argv[1:] else 5
    found = binaries()
    times = {(lab, mode): [] for lab in PACKAGES for mode in ("off", "on")}
    for i in range(runs):
        order = ("off", "on") if i % 2 == 0 else ("on", "off")
        for mode in order:
            for lab in PACKAGES:
                times[(lab, mode)].append(run(found[lab], mode == "on"))
    for which, label in ((0, "wall-clock"), (1, "CPU")):
        print("%s seconds: %-15s %-22s %-22s %s" % (label, "lab", "off: median (range)",
                                                     "on: median (range)", "change"))
        total = {"off": [0.0] * runs, "on": [0.0] * runs}
        for lab in PACKAGES + ["all five"]:
            row = []
            for mode in ("off", "on"):
                if lab == "all five":
                    t = total[mode]
                else:
                    t = [x[which] for x in times[(lab, mode)]]
                    total[mode] = [a + b for a, b in zip(total[mode], t)]
                row.append((statistics.median(t), min(t), max(t)))
            change = 100 * (row[1][0] / row[0][0] - 1)
            cells = ["%.3f (%.3f-%.3f)" % r for r in row]
            print("%s seconds: %-15s %-22s %-22s %+.1f%%" % (label, lab, cells[0], cells[1], change))

if __name__ == "__main__":
    main()
