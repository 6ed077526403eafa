"""Compiler output the book shows, from real runs: reads cargo's JSON messages on stdin and
checks (or, with --bless, rewrites) snapshot files of the rendered diagnostics.

  snapshot.py code LINT FILE [--bless]   every diagnostic with code LINT (e.g.
                                         clippy::await_holding_lock) -> FILE
  snapshot.py targets DIR [--bless]      per target: its errors -> DIR/TARGET.stderr; a target
                                         with no snapshot must have no error, and a snapshot
                                         with no failing target is stale

Paths are normalised as trybuild does, so snapshots do not depend on the machine: the
registry folder becomes $CARGO/, the standard library's source /rustc/HASH/ becomes $RUST/.
Used by scripts/test (chapter 24's clippy warning) and scripts/check-frameworks (chapter 25).
"""

import difflib
import json
import re
import sys
from pathlib import Path


def normalise(text):
    text = re.sub(r"[^\s'`\"]*/registry/src/[^/\s]+/", "$CARGO/", text)
    text = re.sub(r"/rustc/[0-9a-f]{40}/", "$RUST/", text)
    return text


FINISHED = []


def messages(stream):
    """(target name, level, code, rendered) of every compiler message cargo printed."""
    for line in stream:
        line = line.strip()
        if not line.startswith("{"):
            continue
        m = json.loads(line)
        if m.get("reason") == "build-finished":
            FINISHED.append(m)
        if m.get("reason") != "compiler-message":
            continue
        msg = m["message"]
        code = (msg.get("code") or {}).get("code")
        yield m["target"]["name"], msg["level"], code, normalise(msg.get("rendered") or "")


def compare(path, want, bless):
    """0 if PATH holds WANT (or was rewritten to it), 1 with a diff otherwise."""
    have = path.read_text() if path.exists() else None
    if have == want:
        return 0
    if bless:
        path.write_text(want)
        print("wrote %s" % path)
        return 0
    print("%s is not the compiler's current output (rerun with --bless to rewrite it):" % path)
    sys.stdout.writelines(difflib.unified_diff((have or "").splitlines(True), want.splitlines(True),
                                               str(path), "compiler output"))
    return 1


def by_code(lint, path, bless):
    found = [rendered for _, _, code, rendered in messages(sys.stdin) if code == lint]
    if not found:
        print("no %s diagnostic in cargo's output" % lint)
        return 1
    return compare(Path(path), "".join(found), bless)


def by_target(folder, bless):
    folder = Path(folder)
    errors = {}
    for target, level, _, rendered in messages(sys.stdin):
        if level == "error":
            errors.setdefault(target, []).append(rendered)
    if not FINISHED:
        print("cargo stopped before building anything (see its messages above)")
        return 1
    bad = 0
    snapshots = {p.stem: p for p in folder.glob("*.stderr")}
    for target, rendered in sorted(errors.items()):
        if target not in snapshots and not bless:
            print("%s does not compile, and has no snapshot in %s:\n%s" % (target, folder, "".join(rendered)))
            bad = 1
            continue
        bad |= compare(folder / (target + ".stderr"), "".join(rendered), bless)
    for name, path in sorted(snapshots.items()):
        if name not in errors:
            print("%s compiles now, but %s says it fails" % (name, path))
            bad = 1
    if not bad:
        print("errors as in their snapshots: %s" % (" ".join(sorted(errors)) or "none"))
    return bad


def main(argv):
    bless = "--bless" in argv
    args = [a for a in argv if a != "--bless"]
    if args[:1] == ["code"] and len(args) == 3:
        return by_code(args[1], args[2], bless)
    if args[:1] == ["targets"] and len(args) == 2:
        return by_target(args[1], bless)
    sys.exit(__doc__)


sys.exit(main(sys.argv[1:]))
