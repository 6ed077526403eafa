"""The book's poll/wake timelines, drawn from real runs (scripts/timelines runs this).

For each diagram below: `cargo labs trace NN TEST --variant solution --raw` and the same
with `--variant wrong/NAME` record what the executor saw while the lab's test ran the
solution and one wrong answer (lab-support's timeline, labs/support/src/timeline.rs);
this turns each timeline into a mermaid sequence diagram and writes them, one file per
lab, to src/partN/data/NN-slug-timeline.md, which the lab's solution page includes.

    python3 scripts/lib/timelines.py            rewrite the files
    python3 scripts/lib/timelines.py --check    write them to a temporary folder and fail
                                                if a committed file differs (scripts/test)
"""

import difflib
import os
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (lab folder, the book's part, the test, the wrong answers drawn beside the solution)
DIAGRAMS = [
    ("01-countdown", "part1", "wakes_the_waker_of_the_latest_poll", ["no_wake"]),
    ("02-map-join-select", "part1", "join_polls_both_sides_on_every_poll",
     ["join_repolls_done", "join_noop_waker"]),
    ("03-block-on", "part1", "polls_once_per_wake", ["busy_poll"]),
    ("13-local-scope", "part3", "nested_jobs_start_at_once", ["not_rechecked", "busy_wake"]),
]

def names():
    """What each mistake the recorder names is called on the runner's screen: the one
    table, labs/runner/explain.toml."""
    with open(os.path.join(ROOT, "labs", "runner", "explain.toml"), "rb") as f:
        table = tomllib.load(f)
    return {p: e["name"] for e in table["entry"] for p in e.get("patterns", [])}


def trace(lab, test, variant):
    """The raw timeline of `test` for lab `lab` (its number) run on `variant`."""
    out = subprocess.run(
        ["cargo", "labs", "trace", lab, test, "--variant", variant, "--raw"],
        cwd=os.path.join(ROOT, "labs"),
        capture_output=True,
        text=True,
    )
    if out.returncode != 0 or not out.stdout.startswith("timeline\t"):
        sys.exit(f"cargo labs trace {lab} {test} --variant {variant} failed:\n{out.stdout}{out.stderr}")
    return out.stdout


def parse(text):
    """The timeline file: its fields, patterns and events (see labs/runner/src/trace.rs)."""
    t = {"patterns": [], "events": [], "total": 0, "cut": None}
    for line in text.splitlines():
        f = line.split("\t")
        if f[0] in ("test", "outcome"):
            t[f[0]] = f[1]
        elif f[0] == "events":
            t["total"] = int(f[1])
        elif f[0] == "cut":
            t["cut"] = (int(f[1]), int(f[2]))
        elif f[0] == "pattern":
            t["patterns"].append({"id": f[1], "seq": int(f[2]), "detail": f[3]})
        elif f[0] == "event":
            keys = ["seq", "at", "thread", "depth", "kind", "by", "future", "waker", "detail"]
            e = dict(zip(keys, f[1:]))
            e["seq"] = int(e["seq"])
            t["events"].append(e)
    return t


def owner(waker, names):
    """Who a waker wakes: its task, the executor, or the waker itself (a counting waker)."""
    if waker.endswith("'s waker"):
        task = waker[: -len("'s waker")]
        if task in names:
            return task
        return "the executor"
    return waker


def clean(text):
    # `;` ends a mermaid statement and `#` starts an entity: keep them out of labels.
    return text.replace(";", ",").replace("#", "")


# Events drawn of one timeline at most; a longer one is cut to the part that matters (from
# its start, or to a few events after the first mistake named), saying how much was left out.
DRAWN = 28
AFTER_HIT = 6
# A timeline at most this much longer is drawn whole: cutting a few events saves nothing.
SLACK = 10


def drawable(t):
    """The events a diagram may show: not the drops of wakers and futures (the clones
    and wake-ups tell the story), and not what other threads did after the last poll
    began: a wake-up that no poll followed races with the test's end (a failing test
    panics on the test thread while a thread of the test wakes the waker), so it would
    come and go from run to run."""
    events = [e for e in t["events"] if e["kind"] not in ("drop", "dropped")]
    polls = [i for i, e in enumerate(events) if e["kind"] == "poll"]
    last = polls[-1] if polls else len(events)
    return [e for i, e in enumerate(events) if i <= last or e["thread"] == "test thread"]


def window(t, events):
    """The part of `events` to draw, as (start, end): all of them, or DRAWN of them from
    the start, or ending a few events after the first mistake named."""
    if len(events) <= DRAWN + SLACK:
        return 0, len(events)
    end = DRAWN
    if t["patterns"]:
        first = min(p["seq"] for p in t["patterns"])
        at = next((i for i, e in enumerate(events) if e["seq"] >= first), len(events) - 1)
        end = max(DRAWN, min(at + AFTER_HIT + 1, len(events)))
    start = end - DRAWN
    if start <= SLACK:
        start = 0
    return start, end


def mermaid(t, command):
    """A sequence diagram of a timeline: polls as calls, answers as replies, wake-ups as
    asynchronous messages to the waker's task, clones and notes over their actor, the
    mistakes the recorder named where it named them. What `drawable` leaves out is not
    drawn, nor what `window` cuts (a note says how many events, and the command that
    shows them all)."""
    everything = drawable(t)
    start, end = window(t, everything)
    events = everything[start:end]
    names = []

    def actor(name):
        if name not in names:
            names.append(name)
        return "P%d" % names.index(name)

    lines = []
    last_at = "-"
    hits = {}
    for p in t["patterns"]:
        hits.setdefault(p["seq"], []).append(p["id"])
    # Declare the pollers and futures first, in order of appearance.
    for e in events:
        if e["kind"] == "poll":
            actor(e["by"])
            actor(e["future"])
    # Events left out: before the window, in it (the recorder keeps only a long
    # timeline's first and last events) and after it.
    before, after = start, len(everything) - end
    if before:
        lines.append("    Note over {SPAN}: the first %d events not drawn" % before)
    cut = t["cut"]
    for seq in [seq for seq in hits if events and seq < events[0]["seq"]]:
        del hits[seq]
    for e in events:
        if cut and cut[1] <= e["seq"] and events[0]["seq"] < cut[0] and not cut_noted(lines):
            lines.append("    Note over {SPAN}: %d events not recorded (the recorder keeps "
                         "a timeline's first and last ones)" % (cut[1] - cut[0]))
        if e["at"] != "-" and e["at"] != last_at:
            lines.append("    Note over {SPAN}: at %s ms" % e["at"])
            last_at = e["at"]
        kind, by, future, waker = e["kind"], e["by"], e["future"], e["waker"]
        if kind == "poll":
            lines.append("    %s->>%s: poll (%s)" % (actor(by), actor(future), clean(waker)))
        elif kind == "pending":
            how = {"woke": " (woke it)", "kept": " (kept it)", "woke,kept": " (woke it)",
                   "none": ": no wake-up arranged"}.get(e["detail"], "")
            lines.append("    %s-->>%s: Pending%s" % (actor(future), actor(by), how))
        elif kind == "ready":
            lines.append("    %s-->>%s: Ready" % (actor(future), actor(by)))
        elif kind == "panicked":
            lines.append("    %s--x%s: panics" % (actor(future), actor(by)))
        elif kind in ("wake", "wake-by-ref"):
            lines.append("    %s-)%s: wake (%s)" % (actor(by), actor(owner(waker, names)), clean(waker)))
        elif kind == "clone":
            lines.append("    Note over %s: clones %s" % (actor(by), clean(waker)))
        elif kind == "note":
            who = future if future != "-" else by
            lines.append("    Note over %s: %s" % (actor(who), clean(e["detail"])))
        # A mistake named at this event, or at one not drawn (a drop) since the last.
        for seq in sorted(seq for seq in hits if seq <= e["seq"]):
            who = future if future != "-" else by
            for pid in hits.pop(seq):
                lines.append("    Note over %s: the recorder names %s" % (actor(who), clean(pid)))
    if after:
        lines.append("    Note over {SPAN}: %d later events not drawn (%s shows them all)"
                     % (after, clean(command)))
    span = "P0,P%d" % (len(names) - 1) if len(names) > 1 else "P0"
    head = ["```mermaid", "sequenceDiagram"]
    head += ["    participant P%d as %s" % (i, clean(n)) for i, n in enumerate(names)]
    return "\n".join(head + [line.replace("{SPAN}", span) for line in lines] + ["```"])


def cut_noted(lines):
    return any("events not recorded" in line for line in lines)


def page(lab, test, wrongs, runs):
    number = lab[:2]
    out = [
        "<!-- Generated by scripts/timelines from real runs of `cargo labs trace %s %s`: do not edit. -->"
        % (number, test),
        "",
    ]
    for variant, t in runs:
        verdict = "passes" if t["outcome"] == "passed" else "fails"
        if variant == "solution":
            title = "**The solution**, in `%s` (the test %s):" % (test, verdict)
        else:
            title = "**`%s.rs`**, the same test (it %s):" % (variant, verdict)
        command = "cargo labs trace %s %s --variant %s" % (number, test, variant)
        out += [title, "", mermaid(t, command), ""]
        for p in t["patterns"]:
            out += ["The recorder names *%s* (`%s`): %s." % (names().get(p["id"], p["id"]), p["id"], p["detail"]), ""]
    return "\n".join(out).rstrip() + "\n"


def generate(into):
    written = []
    for lab, part, test, wrongs in DIAGRAMS:
        number = lab[:2]
        runs = [("solution", parse(trace(number, test, "solution")))]
        for wrong in wrongs:
            runs.append(("wrong/" + wrong, parse(trace(number, test, "wrong/" + wrong))))
        path = os.path.join(into, "src", part, "data", "%s-timeline.md" % lab)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(page(lab, test, wrongs, runs))
        written.append(os.path.relpath(path, into))
    return written


def main():
    if sys.argv[1:] == ["--check"]:
        with tempfile.TemporaryDirectory() as tmp:
            stale = 0
            for rel in generate(tmp):
                new = open(os.path.join(tmp, rel)).read()
                try:
                    old = open(os.path.join(ROOT, rel)).read()
                except FileNotFoundError:
                    old = ""
                if new != old:
                    stale += 1
                    sys.stdout.writelines(difflib.unified_diff(
                        old.splitlines(True), new.splitlines(True), rel + " (committed)", rel + " (now)"))
                else:
                    print("current: " + rel)
            if stale:
                sys.exit("timelines: %d file(s) differ from a run now: scripts/timelines rewrites them" % stale)
            print("timelines: %d files current" % len(DIAGRAMS))
        return
    if sys.argv[1:]:
        sys.exit(__doc__)
    for rel in generate(ROOT):
        print("wrote " + rel)


if __name__ == "__main__":
    main()
