"""Proves that Miri catches what the ordinary tests cannot: every answer in
solutions/NN-slug/ub/*.rs is spliced into the solution (like `cargo labs verify` does with
wrong/ answers: `//! replaces: ANCHOR`), then

- run under Miri, which must stop with undefined behaviour whose message contains the
  header's `//! expect-miri: TEXT`;
- with `//! without-miri: pass`, also run by the ordinary tests, which must pass: only
  Miri can tell this answer is wrong;
- with `//! tree-borrows: pass`, also run under Miri with Tree Borrows, which must find
  nothing: the two aliasing models disagree about it.

Miri's report (its first message, with machine-specific numbers and paths normalised)
is kept next to the answer as NAME.miri.txt, which a page may include: it must match what
Miri says now (MIRI_BLESS=1 rewrites it).

Usage: miri-ub.py TOOLCHAIN MIRIFLAGS solutions/NN-slug   (run by scripts/miri)
"""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def headers(text):
    found = dict(re.findall(r"^//! (expect-miri|without-miri|tree-borrows|replaces): (.*)$", text, re.M))
    body = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("//!"))
    return found, body


def splice(source, name, body):
    lines = source.splitlines()
    start = lines.index("// ANCHOR: %s" % name)
    end = lines.index("// ANCHOR_END: %s" % name)
    return "\n".join(lines[:start]) + "\n" + body + "\n".join(lines[end + 1:]) + "\n"


def manifest(solution, package):
    """A stand-alone Cargo.toml: the solution's library name, tests and dependencies, with
    paths made absolute and workspace dependencies resolved."""
    own = tomllib.loads((solution / "Cargo.toml").read_text())
    shared = tomllib.loads((ROOT / "solutions/Cargo.toml").read_text())["workspace"]["dependencies"]

    def dep(name, spec):
        if isinstance(spec, dict) and spec.get("workspace"):
            spec = shared[name]
        if isinstance(spec, str):
            return '%s = "%s"' % (name, spec)
        if "path" in spec:
            spec = dict(spec, path=str((solution / spec["path"]).resolve()))
        return "%s = { %s }" % (name, ", ".join("%s = %s" % (k, toml_value(v)) for k, v in spec.items()))

    lines = ['[package]', 'name = "%s"' % package, 'version = "0.0.0"', 'edition = "2024"',
             "publish = false", "", "[lib]", 'name = "%s"' % own["lib"]["name"], 'path = "src/lib.rs"']
    for test in own.get("test", []):
        lines += ["", "[[test]]", 'name = "%s"' % test["name"],
                  'path = "%s"' % (solution / test["path"]).resolve()]
    for section in ("dependencies", "dev-dependencies"):
        if own.get(section):
            lines += ["", "[%s]" % section] + [dep(n, s) for n, s in own[section].items()]
    return "\n".join(lines + ["", "[workspace]", ""])


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[%s]" % ", ".join(toml_value(x) for x in v)
    return '"%s"' % v


def report(stderr, crate):
    """Miri's first error: from its `error:` line to the backtrace, made stable."""
    lines = stderr.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("error: ") and "aborting" not in l)
    end = next((i for i in range(start, len(lines)) if "= note: this is on thread" in lines[i]
                or lines[i].startswith("note: ")), len(lines))
    text = "\n".join(lines[start:end]).rstrip() + "\n"
    text = text.replace(str(crate) + "/", "").replace(str(ROOT) + "/", "")
    text = re.sub(r"\balloc\d+", "ALLOC", text)
    return re.sub(r"<\d+>", "<TAG>", text)


def main(toolchain, miriflags, solution):
    solution = (ROOT / solution).resolve()
    lib = (solution / "src/lib.rs").read_text()
    failed = 0
    files = sorted((solution / "ub").glob("*.rs"))
    for file in files:
        wanted, body = headers(file.read_text())
        name = file.stem
        crate = ROOT / "target/miri-ub" / solution.name / name
        shutil.rmtree(crate, ignore_errors=True)
        (crate / "src").mkdir(parents=True)
        (crate / "src/lib.rs").write_text(splice(lib, wanted.get("replaces", "solution"), body))
        package = "ub-%s-%s" % (solution.name[3:], name.replace("_", "-"))
        (crate / "Cargo.toml").write_text(manifest(solution, package))
        shutil.copy(ROOT / "solutions/Cargo.lock", crate / "Cargo.lock")
        target = ["--target-dir", str(ROOT / "target")]
        problems = []
        if wanted.get("without-miri") == "pass":
            plain = subprocess.run(["cargo", "test", "-q", *target], cwd=crate, capture_output=True, text=True)
            if plain.returncode != 0:
                problems.append("the ordinary tests should pass, but failed:\n" + plain.stdout[-2000:] + plain.stderr[-2000:])
        env = dict(os.environ, MIRIFLAGS=miriflags)
        miri = subprocess.run(["cargo", "+" + toolchain, "miri", "test", "-q", *target],
                              cwd=crate, capture_output=True, text=True, env=env)
        if wanted.get("tree-borrows") == "pass":
            tree = subprocess.run(["cargo", "+" + toolchain, "miri", "test", "-q", *target], cwd=crate,
                                  capture_output=True, text=True,
                                  env=dict(env, MIRIFLAGS=miriflags + " -Zmiri-tree-borrows"))
            if tree.returncode != 0:
                problems.append("Miri with Tree Borrows should find nothing, but failed:\n" + tree.stderr[-3000:])
        expect = wanted.get("expect-miri", "")
        if not expect:
            problems.append("the header needs `//! expect-miri: TEXT`")
        elif miri.returncode == 0:
            problems.append("Miri found nothing wrong")
        elif expect not in miri.stderr:
            problems.append("Miri failed, but without `%s`:\n%s" % (expect, miri.stderr[-3000:]))
        shown = "%s/ub/%s.rs" % (solution.name, name)
        if not problems:
            now, snapshot = report(miri.stderr, crate), file.with_suffix(".miri.txt")
            if os.environ.get("MIRI_BLESS"):
                snapshot.write_text(now)
            elif not snapshot.exists() or snapshot.read_text() != now:
                problems.append("%s is not what Miri says now (MIRI_BLESS=1 scripts/miri rewrites it):\n%s"
                                % (snapshot.relative_to(ROOT), now))
        if problems:
            failed += 1
            print("FAIL %s: %s" % (shown, "\n".join(problems)))
        else:
            ub = next((l.strip() for l in miri.stderr.splitlines() if "Undefined Behavior" in l or expect in l), expect)
            notes = ["ordinary tests pass"] if wanted.get("without-miri") else []
            notes += ["Tree Borrows finds nothing"] if wanted.get("tree-borrows") else []
            print("ok   %s: Miri: %s%s" % (shown, ub, "".join("; " + n for n in notes)))
    print("miri-ub: %d answers, %d failed" % (len(files), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
