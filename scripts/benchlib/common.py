"""What every benchmark shares: where data lives, the machine, rounds in rotating order,
building with cargo, divan's output, JSON, and the pieces of a generated chart.

A benchmark is one module next to this one (see README, "Adding a benchmark"). It defines

    NAME = "zero-cost"             # scripts/bench NAME
    DATA = "src/part1/data"        # NAME.json and NAME-chart.md go here, next to the page
    ROUNDS = 31                    # default number of rounds (BENCH_ROUNDS overrides)
    SOURCES = ["solutions/…"]      # the code that produces the numbers (files or folders):
                                   # NAME.json records their hash and the toolchain, and
                                   # `scripts/bench --check` fails once either changes
    def run(ctx: Run) -> dict:     # measure; return what NAME.json holds
    def chart(data: dict) -> str:  # the markdown the page includes, from NAME.json alone

and the harness (`__main__.py`) does the rest: writing the JSON and the chart, checking
that a committed chart is what its JSON generates (`scripts/bench --check`), and the smoke
run (`scripts/bench --smoke NAME`: tiny, into a temporary folder, commits nothing).
"""

import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"


def say(message):
    """A progress line on stderr, like the shell scripts' `say`."""
    print("\033[1m==> %s\033[0m" % message, file=sys.stderr, flush=True)


class BenchError(Exception):
    """A benchmark could not produce its data; the message says why."""


# --- The machine -------------------------------------------------------------------------

def _first(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return ""


def machine():
    """Who measured: CPU, cores, RAM, OS, compiler, date, and the load average as the run
    begins (other work on the machine skews results, so the chart says how busy it was)."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cpu = cpu or _first(["sysctl", "-n", "machdep.cpu.brand_string"]) or os.uname().machine
    try:
        kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal"))
        memory = "%.0f GiB" % (kib / 1048576)
    except (OSError, StopIteration):
        memory = "unknown"
    try:
        load = Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        load = (_first(["sysctl", "-n", "vm.loadavg"]).split() or ["", "unknown"])[1]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu, "cores": cores, "memory": memory,
            "os": "%s %s" % (os.uname().sysname, os.uname().release),
            "rustc": _first(["rustc", "-V"]),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "load_average": load or "unknown"}


def load_average():
    """The 1-minute load average now (0.0 where the OS does not say)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError):
        return 0.0


# --- What produced the data ------------------------------------------------------------------

def toolchain():
    """The channel rust-toolchain.toml pins (the compiler every benchmark is built with)."""
    text = (ROOT / "rust-toolchain.toml").read_text()
    found = re.search(r'^channel\s*=\s*"([^"]+)"', text, re.M)
    return found.group(1) if found else "unknown"


def sources_hash(sources):
    """A SHA-256 over every file under SOURCES (paths relative to the repository), by name
    and content, in a fixed order: it changes when the code that produces the numbers does."""
    import hashlib
    digest = hashlib.sha256()
    files = []
    for source in sources:
        path = ROOT / source
        if path.is_dir():
            files += [p for p in path.rglob("*") if p.is_file() and "target" not in p.parts]
        elif path.is_file():
            files.append(path)
        else:
            raise BenchError("SOURCES names %s, which does not exist" % source)
    for f in sorted(set(files)):
        digest.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def provenance(module):
    """What the committed data must record, for `--check` to tell when it is stale."""
    return {"sources": list(module.SOURCES), "sha256": sources_hash(module.SOURCES),
            "toolchain": toolchain()}


def staleness(module, data):
    """Why DATA (the committed JSON) no longer describes what MODULE's code measures, or None."""
    recorded = data.get("provenance")
    if not recorded:
        return "measured before scripts/bench recorded what produced its data"
    now = provenance(module)
    if recorded.get("toolchain") != now["toolchain"]:
        return "measured with Rust %s; the pinned toolchain is %s" % (recorded.get("toolchain"), now["toolchain"])
    if recorded.get("sources") != now["sources"] or recorded.get("sha256") != now["sha256"]:
        return "its code changed since (%s)" % ", ".join(now["sources"])
    return None


# --- A quiet machine -------------------------------------------------------------------------

BUSY_LOAD = 0.5       # the 1-minute load average above which a run does not start
BUSY_CORES = 0.5      # other processes' CPU (in cores, over a few seconds) that ends a run


def _cpu_jiffies():
    """(busy, total) jiffies of every CPU, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def _tree_jiffies(root_pid):
    """CPU jiffies used by ROOT_PID and every process under it, live or reaped (a reaped
    child's time moves into its parent's cutime/cstime, so the sum is continuous)."""
    parents, times = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()
        parents[int(entry.name)] = int(rest[1])
        times[int(entry.name)] = sum(int(x) for x in rest[11:15])
    total = 0
    for pid, t in times.items():
        p = pid
        while p and p != root_pid and p in parents:
            p = parents[p]
        if p == root_pid:
            total += t
    return total


class QuietWatch:
    """While a benchmark runs: how much CPU the rest of the machine uses, in cores, at most
    over any window of WINDOW seconds. Linux only (elsewhere it records nothing)."""

    WINDOW = 5.0

    def __init__(self):
        import threading
        self.others_max = 0.0
        self.available = Path("/proc/stat").exists()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        if self.available:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self.available:
            self._thread.join()

    def _watch(self):
        import time
        hz = os.sysconf("SC_CLK_TCK")
        me = os.getpid()
        busy0, _ = _cpu_jiffies()
        mine0, t0 = _tree_jiffies(me), time.monotonic()
        while not self._stop.wait(self.WINDOW):
            busy1, _ = _cpu_jiffies()
            mine1, t1 = _tree_jiffies(me), time.monotonic()
            others = max(0, (busy1 - busy0) - (mine1 - mine0)) / hz / (t1 - t0)
            self.others_max = max(self.others_max, others)
            busy0, mine0, t0 = busy1, mine1, t1


def refuse_if_busy(name):
    """A benchmark measures on a quiet machine, one at a time: refuse to start when the load
    average is above BUSY_LOAD (BENCH_ALLOW_BUSY=1 overrides: the data records the load)."""
    load = load_average()
    if load > BUSY_LOAD and os.environ.get("BENCH_ALLOW_BUSY") != "1":
        raise BenchError(
            "%s: the machine is busy (load average %.2f > %.1f). Other work skews every "
            "benchmark (per-round ratios were seen to range 4x): measure on a quiet machine, "
            "one benchmark at a time (BENCH_ALLOW_BUSY=1 measures anyway)." % (name, load, BUSY_LOAD))


# --- A run -------------------------------------------------------------------------------

class Run:
    """What a benchmark's `run(ctx)` gets: its rounds, whether this is a smoke run, a scratch
    folder, the machine (recorded before anything runs) and the command that reproduces it."""

    def __init__(self, name, rounds, smoke, scratch):
        self.name = name
        self.rounds = rounds
        self.smoke = smoke
        self.scratch = Path(scratch)
        self.command = "scripts/bench " + name
        self.machine = machine()

    @staticmethod
    def say(message):
        say(message)

    def rotations(self, variants):
        """(round, variant) for every round, the variants in an order that rotates from round
        to round, so no variant always runs first or last. Comparisons are made within a
        round: never mix runs made at different times."""
        n = len(variants)
        for r in range(self.rounds):
            for i in range(n):
                yield r, variants[(r + i) % n]

    def cargo_executable(self, cargo_args, target):
        """Builds with `cargo CARGO_ARGS --message-format=json` in solutions/ and returns the
        path of the executable of target TARGET."""
        say("building %s (cargo %s)" % (target, " ".join(cargo_args)))
        proc = subprocess.run(["cargo", *cargo_args, "--message-format=json"], cwd=SOLUTIONS,
                              stdout=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise BenchError("cargo %s failed" % " ".join(cargo_args))
        for line in proc.stdout.splitlines():
            message = json.loads(line)
            if message.get("executable") and message.get("target", {}).get("name") == target:
                return message["executable"]
        raise BenchError("cargo did not build %s" % target)

    def server_executable(self):
        """The servers of `scripts/bench tpc` and `budget` (solutions/tpc-bench): a release
        build to measure; for a smoke run, a dev build, which reuses the debug builds of tokio
        and hyper the other checks made (a smoke proves the servers and the harness run, with
        no error and no lost response, not how fast they are)."""
        profile = [] if self.smoke else ["--release"]
        return self.cargo_executable(["build", *profile, "-p", "tpc-bench", "--bin", "tpc-server"],
                                     "tpc-server")

    def cargo_bench(self, bench, features=()):
        """The executable of `solutions/benches/benches/BENCH.rs` (a divan benchmark), built
        with the benches crate's FEATURES (`jemalloc`)."""
        flags = ["--features", ",".join(features)] if features else []
        return self.cargo_executable(["bench", "-p", "benches", *flags, "--bench", bench, "--no-run"], bench)

    def output(self, command, save_as=None, **kwargs):
        """Runs COMMAND, returns its stdout; keeps a copy in the scratch folder if asked."""
        proc = subprocess.run(command, stdout=subprocess.PIPE, text=True, **kwargs)
        if save_as:
            (self.scratch / save_as).write_text(proc.stdout)
        if proc.returncode != 0:
            raise BenchError("%s exited with %d" % (" ".join(map(str, command)), proc.returncode))
        return proc.stdout

    def tool(self, function, *args):
        """Runs one of scripts/lib/tools.sh's idempotent installers, e.g.
        `ctx.tool("ensure_apt", "wrk", "wrk")`: the shell scripts and the benchmarks share
        one way of installing what is missing."""
        script = 'source "$1/scripts/lib/tools.sh" && shift && "$@"'
        if subprocess.run(["bash", "-c", script, "tool", str(ROOT), function, *args]).returncode != 0:
            raise BenchError("%s %s failed" % (function, " ".join(args)))


# --- divan ---------------------------------------------------------------------------------

UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def parse_divan(text, names):
    """divan's table: for each variant in NAMES, the median column of its row (in ns) and the
    median of its `alloc:` row if any; plus the `future-size NAME BYTES` lines a benchmark
    prints itself."""
    out, current, want_alloc = {}, None, False
    sizes = dict((m[0], int(m[1])) for m in re.findall(r"^future-size (\w+) (\d+)$", text, re.M))
    for line in text.splitlines():
        # A variant's row: "├─ name  fastest │ slowest │ median │ …"; the rows under it
        # start with "│" (or spaces under the last one) and may hold "alloc:" counts.
        cols = [c.strip() for c in re.sub(r"^[├╰│─ ]+", "", line).split("│")]
        name = cols[0].split()[0] if cols[0] else ""
        if name in names and len(cols) >= 4:
            value, unit = cols[2].split()
            current = name
            out[name] = {"ns": float(value) * UNITS[unit], "allocs": 0.0}
        elif current and name == "alloc:":
            want_alloc = True
        elif current and want_alloc:
            out[current]["allocs"] = float(cols[2].split()[0])
            want_alloc = False
    return out, sizes


def divan_row(text, name):
    """The line of divan's table for variant NAME (to show progress), or None."""
    return next((line for line in text.splitlines() if re.match(r"^[├╰]─ %s " % re.escape(name), line)), None)


# --- JSON ----------------------------------------------------------------------------------

def write_json(path, data):
    with open(path, "w") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")


def read_json(path):
    with open(path) as f:
        return json.load(f)


# --- Charts --------------------------------------------------------------------------------

def generated_by(name):
    return "<!-- Generated by scripts/bench from %s.json: do not edit. -->" % name


def ceiling(top, step):
    """A round axis maximum a fifth above the tallest bar."""
    return max(10, -(-top * 1.2 // step) * step)


def bar_chart(title, labels, values, axis, top, value_format="%.1f", horizontal=False):
    """A mermaid xychart: one bar per label, in the book's colour. Returns its lines."""
    return [
        "```mermaid",
        '%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "#4a78b8"}}}}%%',
        "xychart-beta" + (" horizontal" if horizontal else ""),
        '    title "%s"' % title,
        "    x-axis [" + ", ".join('"%s"' % label for label in labels) + "]",
        '    y-axis "%s" 0 --> %d' % (axis, top),
        "    bar [" + ", ".join(value_format % v for v in values) + "]",
        "```",
    ]


def table(header, rows, left=1):
    """A markdown table; the first LEFT columns left-aligned (text), the others right-aligned."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * left + "---:|" * (len(header) - left)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def round_ratios(values, base):
    """A variant's ratio to the baseline in each round (both ran back to back in it)."""
    return [v / b for v, b in zip(values, base)]


def ratio_cell(ratios, median=None):
    """The table cell of a ratio column: the median of the rounds' ratios (MEDIAN if the
    JSON holds it, computed from unrounded times), and their range; a range that has rounds
    on both sides of 1.00 is marked inconclusive: those rounds do not agree which is faster."""
    median = statistics.median(ratios) if median is None else median
    if max(ratios) - min(ratios) < 0.005:
        return "%.2f×" % median
    low, high = min(ratios), max(ratios)
    verdict = ", inconclusive" if round(low, 2) < 1.0 < round(high, 2) else ""
    return "%.2f× (%.2f–%.2f%s)" % (median, low, high, verdict)


def folded(summary, lines):
    """LINES (a table, notes) folded under SUMMARY, for the detail a reader may skip: mdBook
    renders the markdown inside <details> (blank lines around it)."""
    return ["<details>", "<summary>%s</summary>" % summary, ""] + list(lines) + ["", "</details>"]


def ratio_note(rounds, baseline, rows, value_format, column="time"):
    """The footnote under a table whose ratio column comes from `ratio_cell`, saying what the
    ratio is and why it differs from dividing the table's medians. ROWS: (label, median,
    baseline median, median ratio); the row where the two differ most is the example."""
    def quotient(row):
        return float(value_format % row[1]) / float(value_format % row[2])
    label, value, base, _ = max(rows, key=lambda row: abs(quotient(row) - row[3]))
    return ("¹ The median of the %d rounds' ratios, with their range: in each round the variants ran "
            "back to back, and a variant's ratio is its %s over the %s of %s in the same round. "
            "It is not the quotient of two medians in the %s column (%s: %s / %s = %.2f×): the "
            "machine's load moves every variant's %s from round to round, and a ratio taken within "
            "one round cancels that."
            % (rounds, column, column, baseline, column, label, value_format % value, value_format % base,
               quotient((label, value, base, 0)), column))


def measured_on(data):
    """The closing sentence of every chart: the machine, and the command that reproduces it."""
    m = data["machine"]
    return ("Measured on %s: %s, %d cores (load average %s as the run began), %s RAM, %s; %s. "
            "Command: `%s`." % (m["date"], m["cpu"], m["cores"], m["load_average"], m["memory"],
                                m["os"], m["rustc"], data["command"]))


def scratch_dir():
    return tempfile.mkdtemp(prefix="bench-")


def remove(path):
    shutil.rmtree(path, ignore_errors=True)
