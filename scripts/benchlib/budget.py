"""Chapter 19: one task holding every connection of a thread, inside and outside tokio's budget."""

import os
import statistics
import sys

from .common import BenchError, bar_chart, ceiling, generated_by, measured_on, ratio_cell, table
from .tpc import Server, run_wrk, tool_version

NAME = "budget"
DATA = "src/part4/data"
ROUNDS = 5
# The code that produces the numbers: the data records its hash (scripts/bench --check).
SOURCES = ["solutions/tpc-bench", "solutions/19-tpc-server/src"]

# tpc-server variants (solutions/tpc-bench), one thread each, in the order of the table.
VARIANTS = [("thread-per-core", "a task per connection (spawn_local)"),
            ("scoped-budget", "one scope per thread, inside the budget"),
            ("scoped", "one scope per thread, unconstrained"),
            ("lab-19", "lab 19's server (unconstrained)")]
BASELINE = "thread-per-core"
SECONDS = int(os.environ.get("BENCH_BUDGET_SECONDS", "10"))  # one wrk run
CONNECTIONS = 100


def run(ctx):
    if sys.platform != "linux":
        raise BenchError("scripts/bench budget needs Linux: taskset and SO_REUSEPORT")
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        raise BenchError("scripts/bench budget needs two cores: one for the server, one for wrk")
    ctx.tool("ensure_apt", "taskset", "util-linux")
    ctx.tool("ensure_apt", "wrk", "wrk")
    exe = ctx.server_executable()
    seconds = 1 if ctx.smoke else SECONDS
    server_cores, generator_cores = cores[:1], cores[1:2]
    runs = {v: [] for v, _ in VARIANTS}
    for r, (variant, _) in ctx.rotations(VARIANTS):
        ctx.say("round %d/%d: %s" % (r + 1, ctx.rounds, variant))
        with Server(exe, server_cores, variant, 1, "plain", 1, max_seconds=seconds + 60) as server:
            result = run_wrk(server.url(), CONNECTIONS, 1, seconds, generator_cores)
        result["round"] = r
        print("  %.0f req/s, p99 %.2f ms, max %.1f ms" % (result["rps"], result["p99_ms"], result["max_ms"]))
        runs[variant].append(result)
    rows = []
    for variant, label in VARIANTS:
        rec = runs[variant]
        row = {"variant": variant, "label": label, "runs": rec}
        row.update({k: round(statistics.median(x[k] for x in rec), 3) for k in ("rps", "p50_ms", "p99_ms", "max_ms")})
        row["errors"] = sum(x["errors"] for x in rec)
        rows.append(row)
    return {"benchmark": NAME, "command": ctx.command, "rounds": ctx.rounds, "seconds": seconds,
            "connections": CONNECTIONS, "server_cores": server_cores, "generator_cores": generator_cores,
            "tools": {"wrk": tool_version(["wrk", "-v"])}, "machine": ctx.machine, "rows": rows}


def chart(data):
    rows = data["rows"]
    base = next(r for r in rows if r["variant"] == BASELINE)
    lines = [generated_by(NAME), ""]
    lines += bar_chart("p99 latency, one server thread, %d connections" % data["connections"],
                       [r["label"] for r in rows], [r["p99_ms"] for r in rows], "ms",
                       ceiling(max(r["p99_ms"] for r in rows), 5), "%.2f", horizontal=True)
    body = []
    for r in rows:
        by_round = {x["round"]: x["rps"] for x in base["runs"]}
        ratios = [x["rps"] / by_round[x["round"]] for x in r["runs"] if x["round"] in by_round]
        body.append([r["label"], format(round(r["rps"]), ","), ratio_cell(ratios), "%.2f" % r["p50_ms"],
                     "%.2f" % r["p99_ms"], "%.1f" % r["max_ms"], str(r["errors"])])
    lines += [""] + table(["Server thread", "req/s", "req/s vs a task per connection¹", "p50 ms",
                           "p99 ms", "max ms", "errors"], body)
    lines += ["",
              "The same hyper hello-world service on one thread of core %s, wrk (`-t1 -c%d -d%ds`, closed "
              "loop) on core %s. Latency here is closed-loop: it is what these %d connections saw, not "
              "what an open stream of users would see." % (
                  ",".join(map(str, data["server_cores"])), data["connections"], data["seconds"],
                  ",".join(map(str, data["generator_cores"])), data["connections"]),
              "",
              "¹ The median over rounds of each round's ratio, with its range; the variants ran back to "
              "back in each round, in rotating order. Rounds: %d; the other figures are medians over "
              "rounds (errors are summed). %s." % (data["rounds"], data["tools"]["wrk"]),
              "", measured_on(data), ""]
    return "\n".join(lines)
