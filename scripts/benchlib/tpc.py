"""Part IV: one hyper service on work-stealing, round-robin, thread-per-core, lab 19's server and io_uring."""

import json
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile

from .common import (BenchError, bar_chart, ceiling, folded, generated_by, measured_on, ratio_cell, ratio_note,
                     table)

NAME = "tpc"
DATA = "src/part4/data"
ROUNDS = 3
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/tpc-bench", "solutions/19-tpc-server/src"]

# The servers (solutions/tpc-bench, binary tpc-server), in the order of the tables.
VARIANTS = [("work-stealing", "tokio work-stealing"), ("round-robin", "tokio round-robin"),
            ("thread-per-core", "thread-per-core"), ("lab-19", "lab 19's server"),
            ("compio", "compio (io_uring)")]
BASELINE = "work-stealing"
# What a request costs (solutions/tpc-bench/src/work.rs).
WORKS = [("plain", "hello world"), ("spin", "0-10 steps of 10 µs CPU"),
         ("sleep", "0-10 steps of thread::sleep(10 µs)")]
SECONDS = int(os.environ.get("BENCH_TPC_SECONDS", "10"))  # one load run
SOAK_SECONDS = int(os.environ.get("BENCH_TPC_SOAK", "120"))  # the soak, over all servers
CONNECTIONS_PER_THREAD = 100  # wrk's connections per server thread (the seed: 800 for 8)
RATE_FRACTION = 0.5  # latency runs: this share of the slowest server's throughput
OHA_VERSION = "1.16.0"


# --- Running one server and one load generator --------------------------------------------

class Server:
    """tpc-server on CORES, from start to `served N`; the context manager stops it."""

    def __init__(self, exe, cores, variant, threads, work, spin_iterations, max_seconds):
        command = ["taskset", "-c", ",".join(map(str, cores)), exe, "--variant", variant,
                   "--threads", str(threads), "--work", work, "--spin-iterations",
                   str(spin_iterations), "--max-seconds", str(max_seconds)]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if not select.select([self.proc.stdout], [], [], 60)[0]:
            self.proc.kill()
            raise BenchError("tpc-server %s said nothing for 60 s" % variant)
        line = self.proc.stdout.readline().strip()
        self.unavailable = line[len("unavailable: "):] if line.startswith("unavailable: ") else None
        self.port = None
        if not self.unavailable:
            match = re.fullmatch(r"listening 127\.0\.0\.1:(\d+)", line)
            if not match:
                self.proc.kill()
                raise BenchError("tpc-server %s did not start (said %r)" % (variant, line))
            self.port = int(match.group(1))
        self.served = None
        self.cpu = None

    def url(self):
        return "http://127.0.0.1:%d/" % self.port  # servers stay home: loopback only

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.stdin.close()  # the server prints `served N` and exits
        rest = self.proc.stdout.read()
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.cpu = usage.ru_utime + usage.ru_stime
        found = re.search(r"^served (\d+)$", rest, re.M)
        self.served = int(found.group(1)) if found else None
        if exc[0] is None and not self.unavailable and (self.proc.returncode != 0 or self.served is None):
            raise BenchError("tpc-server exited with %s (output %r)" % (self.proc.returncode, rest))


def generator(command, cores):
    """Runs a load generator pinned to CORES; returns its output and CPU seconds."""
    with tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.Popen(["taskset", "-c", ",".join(map(str, cores)), *command],
                                stdout=subprocess.PIPE, stderr=err, text=True)
        out = proc.stdout.read()
        # wait4, not wait: it also says how much CPU this process used.
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise BenchError("%s failed: %s" % (command[0], err.read().strip()[-500:]))
    return out, usage.ru_utime + usage.ru_stime


UNIT_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def ms(text):
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * UNIT_MS[unit]


def run_wrk(url, connections, threads, seconds, cores):
    """Closed-loop throughput at fixed concurrency, as the seed measured it."""
    out, cpu = generator(["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds,
                          "--latency", url], cores)
    latency = re.search(r"^\s*Latency\s+(\S+)\s+(\S+)\s+(\S+)", out, re.M)
    dist = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", out, re.M))  # wrk pads "1.00s "
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    requests = re.search(r"(\d+) requests in ", out)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not (latency and rps and requests and "50" in dist and "99" in dist):
        raise BenchError("could not read wrk's output:\n" + out)
    return {"rps": float(rps.group(1)), "requests": int(requests.group(1)),
            "p50_ms": ms(dist["50"]), "p99_ms": ms(dist["99"]), "max_ms": ms(latency.group(3)),
            "errors": (sum(map(int, socket.groups())) if socket else 0) + (int(non2xx.group(1)) if non2xx else 0),
            "generator_cpu_s": round(cpu, 3)}


def run_oha(url, connections, threads, rate, cores, seconds=None, requests=None):
    """Open-loop latency at a fixed rate, each request timed from when it was due
    (`--latency-correction`), or a fixed number of requests (the soak)."""
    amount = ["-n", str(requests)] if requests else ["-z", "%ds" % seconds, "-w"]
    out, cpu = generator(["oha", *amount, "-c", str(connections), "-q", "%d" % rate,
                          "--latency-correction", "--no-tui", "--output-format", "json",
                          "--worker-threads", str(threads), url], cores)
    data = json.loads(out)
    codes = {str(k): v for k, v in data.get("statusCodeDistribution", {}).items()}
    errors = sum(data.get("errorDistribution", {}).values())
    ok = codes.get("200", 0)
    pct = data["latencyPercentiles"]
    return {"rate": rate, "sent": ok + sum(v for k, v in codes.items() if k != "200") + errors,
            "ok": ok, "errors": errors + sum(v for k, v in codes.items() if k != "200"),
            "p50_ms": (pct.get("p50") or 0) * 1e3, "p99_ms": (pct.get("p99") or 0) * 1e3,
            "max_ms": (data["summary"].get("slowest") or 0) * 1e3, "generator_cpu_s": round(cpu, 3)}


# --- The benchmark -------------------------------------------------------------------------

def configurations(smoke):
    """Where the servers and the load generator run. With two cores or more: server and
    generator pinned to separate cores, every server on the same number of threads (like
    with like); then every core shared by servers and generator, with the generator's
    share of the CPU reported, plus single-thread baselines."""
    cores = sorted(os.sched_getaffinity(0))
    n = len(cores)
    every = [(v, n) for v, _ in VARIANTS]
    if n < 2:
        return [{"name": "shared", "server_cores": cores, "generator_cores": cores, "threads": 1,
                 "runs": every}]
    half = cores[:n // 2]
    pinned = {"name": "pinned", "server_cores": half, "generator_cores": cores[n // 2:],
              "threads": len(half), "runs": [(v, len(half)) for v, _ in VARIANTS]}
    shared = {"name": "shared", "server_cores": cores, "generator_cores": cores, "threads": n,
              "runs": every + [("thread-per-core", 1), ("compio", 1)]}
    return [pinned] if smoke else [pinned, shared]


def run(ctx):
    if sys.platform != "linux":
        raise BenchError("scripts/bench tpc needs Linux: SO_REUSEPORT balancing, taskset, io_uring")
    ctx.tool("ensure_apt", "taskset", "util-linux")
    ctx.tool("ensure_apt", "wrk", "wrk")
    ctx.tool("ensure_oha")
    exe = ctx.server_executable()
    seconds = 1 if ctx.smoke else SECONDS
    soak_seconds = 4 if ctx.smoke else SOAK_SECONDS
    works = WORKS[:2] if ctx.smoke else WORKS
    configs = configurations(ctx.smoke)
    first = configs[0]

    # One calibration, on a server core, for every server: identical CPU work per step.
    cal = dict(re.findall(r"^(\S+) (\S+)$", ctx.output(
        ["taskset", "-c", ",".join(map(str, first["server_cores"])), exe, "--calibrate"]), re.M))
    spin_iterations = int(cal["spin-iterations"])
    ctx.say("spin step: %d iterations, %s µs; thread::sleep(10 µs) takes %s µs"
            % (spin_iterations, cal["spin-step-us"], cal["sleep-step-us"]))

    def serve(config, variant, threads, work):
        return Server(exe, config["server_cores"], variant, threads, work, spin_iterations,
                      max_seconds=10 * seconds + 60)

    results = {}  # (config, variant, threads, work) -> {"throughput": [...], "latency": [...]}
    unavailable = {}
    combos = [(c["name"], v, t, w) for c in configs for w, _ in works for v, t in c["runs"]]
    for key in combos:
        results[key] = {"throughput": [], "latency": []}

    def rotated(r, runs):
        return [runs[(r + i) % len(runs)] for i in range(len(runs))]

    # 1. Throughput at fixed concurrency (wrk), every round covering everything.
    for r in range(ctx.rounds):
        for config in configs:
            for work, _ in works:
                for variant, threads in rotated(r, config["runs"]):
                    ctx.say("throughput round %d/%d: %s, %s × %d thread(s), %s"
                            % (r + 1, ctx.rounds, config["name"], variant, threads, work))
                    with serve(config, variant, threads, work) as server:
                        if server.unavailable:
                            unavailable[variant] = server.unavailable
                            continue
                        result = run_wrk(server.url(), CONNECTIONS_PER_THREAD * config["threads"],
                                         len(config["generator_cores"]), seconds, config["generator_cores"])
                    result["server_cpu_s"] = round(server.cpu, 3)
                    result["round"] = r
                    print("  %.0f req/s, p99 %.2f ms, %d errors" % (result["rps"], result["p99_ms"], result["errors"]))
                    results[(config["name"], variant, threads, work)]["throughput"].append(result)

    # 2. Latency at one fixed rate below saturation (oha, corrected for coordinated
    #    omission): the same rate for every server of a configuration and work.
    rates = {}
    for config in configs:
        for work, _ in works:
            medians = [statistics.median(x["rps"] for x in results[(config["name"], v, t, work)]["throughput"])
                       for v, t in config["runs"] if results[(config["name"], v, t, work)]["throughput"]]
            rates[(config["name"], work)] = max(1, int(RATE_FRACTION * min(medians)))
    for r in range(ctx.rounds):
        for config in configs:
            for work, _ in works:
                rate = rates[(config["name"], work)]
                for variant, threads in rotated(r, config["runs"]):
                    if variant in unavailable:
                        continue
                    ctx.say("latency round %d/%d: %s, %s × %d thread(s), %s at %d req/s"
                            % (r + 1, ctx.rounds, config["name"], variant, threads, work, rate))
                    with serve(config, variant, threads, work) as server:
                        result = run_oha(server.url(), CONNECTIONS_PER_THREAD * config["threads"],
                                         len(config["generator_cores"]), rate, config["generator_cores"],
                                         seconds=seconds)
                    result["served"] = server.served
                    result["round"] = r
                    print("  p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors"
                          % (result["p50_ms"], result["p99_ms"], result["max_ms"], result["errors"]))
                    results[(config["name"], variant, threads, work)]["latency"].append(result)

    # 3. The soak: a fixed number of requests to each server; every one must come back 200,
    #    and the server must have sent exactly that many responses.
    soak, soak_rate = [], rates[(first["name"], "plain")]
    runs = [(v, t) for v, t in first["runs"] if v not in unavailable]
    per_server = max(1, soak_seconds // len(runs))
    for variant, threads in runs:
        requests = soak_rate * per_server
        ctx.say("soak: %s × %d thread(s), %d requests at %d req/s" % (variant, threads, requests, soak_rate))
        with serve(first, variant, threads, "plain") as server:
            result = run_oha(server.url(), CONNECTIONS_PER_THREAD * first["threads"],
                             len(first["generator_cores"]), soak_rate, first["generator_cores"],
                             requests=requests)
        entry = {"variant": variant, "threads": threads, "requests": requests, "ok": result["ok"],
                 "errors": result["errors"], "served": server.served}
        soak.append(entry)
        print("  %(ok)d of %(requests)d answered 200, %(errors)d errors, server sent %(served)d" % entry)
        if entry["ok"] != requests or entry["errors"] or entry["served"] != requests:
            raise BenchError("soak failed for %s: %r" % (variant, entry))

    out_configs = []
    for config in configs:
        rows = []
        for work, work_label in works:
            for variant, threads in config["runs"]:
                rec = results[(config["name"], variant, threads, work)]
                row = {"variant": variant, "label": dict(VARIANTS)[variant], "threads": threads,
                       "work": work, "work_label": work_label}
                if variant in unavailable:
                    row["unavailable"] = unavailable[variant]
                else:
                    row["throughput"] = summarize(rec["throughput"], ["rps", "p50_ms", "p99_ms", "max_ms"])
                    row["latency"] = summarize(rec["latency"], ["p50_ms", "p99_ms", "max_ms"])
                    row["latency"]["rate"] = rates[(config["name"], work)]
                    row["throughput"]["runs"] = rec["throughput"]
                    row["latency"]["runs"] = rec["latency"]
                rows.append(row)
        out_configs.append({"name": config["name"], "server_cores": config["server_cores"],
                            "generator_cores": config["generator_cores"], "threads": config["threads"],
                            "connections": CONNECTIONS_PER_THREAD * config["threads"], "rows": rows})
    return {"benchmark": NAME, "command": ctx.command, "rounds": ctx.rounds, "seconds": seconds,
            "rate_fraction": RATE_FRACTION,
            "calibration": {"spin_iterations": spin_iterations, "spin_step_us": float(cal["spin-step-us"]),
                            "sleep_step_us": float(cal["sleep-step-us"])},
            "tools": {"wrk": tool_version(["wrk", "-v"]), "oha": tool_version(["oha", "--version"])},
            "machine": ctx.machine, "configs": out_configs,
            "soak": {"seconds": soak_seconds, "rate": soak_rate, "servers": soak}}


def summarize(runs, keys):
    out = {k: round(statistics.median(r[k] for r in runs), 3) for k in keys}
    out["errors"] = sum(r["errors"] for r in runs)
    return out


def tool_version(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    first = (proc.stdout + proc.stderr).strip().splitlines()[0]
    return first.split(" Copyright")[0]  # wrk -v adds its copyright


# --- The chart -----------------------------------------------------------------------------

def round_ratio(row, base, key):
    """Median over rounds of ROW's KEY over BASE's in the same round."""
    mine = {r["round"]: r[key] for r in row["throughput" if key == "rps" else "latency"]["runs"]}
    theirs = {r["round"]: r[key] for r in base["throughput" if key == "rps" else "latency"]["runs"]}
    ratios = [mine[k] / theirs[k] for k in mine if k in theirs and theirs[k]]
    return ratios


def chart(data):
    lines = [generated_by(NAME)]
    cal = data["calibration"]
    for config in data["configs"]:
        rows = [r for r in config["rows"] if "throughput" in r]
        where = ("server on core%s %s, wrk on core%s %s" % (
            "s" if len(config["server_cores"]) > 1 else "", ",".join(map(str, config["server_cores"])),
            "s" if len(config["generator_cores"]) > 1 else "", ",".join(map(str, config["generator_cores"])))
            if config["name"] == "pinned" else "server and wrk share all %d cores" % len(config["server_cores"]))
        lines += [""]
        lines += bar_chart("req/s: %s" % where,
                           ["%s ×%d, %s" % (r["label"], r["threads"], r["work"]) for r in rows],
                           [r["throughput"]["rps"] for r in rows], "requests per second",
                           ceiling(max(r["throughput"]["rps"] for r in rows), 1000), "%.0f", horizontal=True)
        lines += [""]
        body = []
        notes = []
        for r in config["rows"]:
            if "unavailable" in r:
                body.append([r["label"], str(r["threads"]), r["work"], "skipped: " + r["unavailable"],
                             "", "", "", "", ""])
                continue
            base = next(b for b in config["rows"] if b["variant"] == BASELINE and b["work"] == r["work"])
            ratios = round_ratio(r, base, "rps")
            t = r["throughput"]
            body.append([r["label"], str(r["threads"]), r["work"], format(round(t["rps"]), ","),
                         ratio_cell(ratios) if ratios else "–",
                         "%.2f" % t["p50_ms"], "%.2f" % t["p99_ms"], "%.1f" % t["max_ms"], str(t["errors"])])
            if r["variant"] != BASELINE and ratios:
                notes.append((r["label"] + " " + r["work"], t["rps"], base["throughput"]["rps"],
                              statistics.median(ratios)))
        lines += folded("Throughput with %d connections (wrk, closed loop, %d s per run): every row"
                        % (config["connections"], data["seconds"]),
                        table(["Server", "Threads", "Work", "req/s", "vs work-stealing¹", "p50 ms", "p99 ms",
                               "max ms", "errors"], body, left=3))
        body = []
        for r in config["rows"]:
            if "unavailable" in r:
                continue
            base = next(b for b in config["rows"] if b["variant"] == BASELINE and b["work"] == r["work"])
            ratios = round_ratio(r, base, "p99_ms")
            lat = r["latency"]
            body.append([r["label"], str(r["threads"]), r["work"], format(lat["rate"], ","),
                         "%.2f" % lat["p50_ms"], "%.2f" % lat["p99_ms"],
                         ratio_cell(ratios) if ratios else "–", "%.1f" % lat["max_ms"],
                         str(lat["errors"])])
        lines += [""] + folded("Latency at a fixed rate, half the slowest server's throughput (oha, open "
                               "loop, each request timed from when it was due: `-q RATE "
                               "--latency-correction`): every row",
                               table(["Server", "Threads", "Work", "rate req/s", "p50 ms", "p99 ms",
                                      "p99 vs work-stealing²", "max ms", "errors"], body, left=3))
        gen = [x["generator_cpu_s"] / data["seconds"] for r in rows for x in r["throughput"]["runs"]]
        lines += ["", "The load generator (wrk) used %.2f of the machine's %d cores on average during the "
                  "throughput runs (%s)." % (statistics.mean(gen), data["machine"]["cores"],
                                            "on its own core" if config["name"] == "pinned"
                                            else "taken from the same cores the servers ran on")]
        if notes:
            lines += ["", ratio_note(data["rounds"], "tokio work-stealing with the same work", notes, "%.0f",
                                     column="req/s"),
                  "", "² The same for the p99 latency: each round's p99 over tokio work-stealing's at the same "
                  "rate, the median over rounds."]
    soak = data["soak"]
    lines += ["",
              "Work per request: *plain* answers at once; *spin* takes 0 to 10 steps, each %d iterations of "
              "a multiply-add (%.1f µs here) followed by an await that yields; *sleep* takes the same steps "
              "as `std::thread::sleep(10 µs)`, which lasted %.1f µs here and leaves the core idle meanwhile."
              % (cal["spin_iterations"], cal["spin_step_us"], cal["sleep_step_us"]),
              "Soak: %s; every one answered 200, none lost (each server counted exactly the responses "
              "it sent)." % "; ".join("%s ×%d: %s requests at %s req/s" % (
                  dict(VARIANTS)[s["variant"]], s["threads"], format(s["requests"], ","),
                  format(soak["rate"], ",")) for s in soak["servers"]),
              "Rounds: %d, in rotating order; the figures are medians over rounds (errors are summed). "
              "%s, %s." % (data["rounds"], data["tools"]["wrk"], data["tools"]["oha"]),
              measured_on(data), ""]
    return "\n".join(lines)
