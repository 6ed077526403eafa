#!/usr/bin/env python3
"""Counts stated in prose, checked against what they count (scripts/test runs this).

A sentence such as "all 14 tests in tests/local_runtime.rs pass" goes stale the day a
test is added. So every such count carries a marker, an HTML comment readers never see,
right after it on the same line, naming what it counts:

    all 14 tests<!-- count: tests 16 --> in `tests/local_runtime.rs` pass

and this script recomputes it and fails when the number before the marker differs. The
number may be digits or a word ("fourteen"). Kinds:

    tests NN               the tests of lab NN (#[test] and #[tokio::test] functions in
                           labs/NN-*/tests/*.rs)
    tests NN FILE          those of one test file (labs/NN-*/tests/FILE)
    tests NN /REGEX/       those whose name matches REGEX (Python syntax)
    errors PATH [CODE]     compiler errors in a snapshot (lines starting `error[` or
                           `error:`, not the "aborting due to" total), or only code CODE
    wrong NN [KIND]        files in solutions/NN-*/wrong/, or only those whose header says
                           `expect-KIND` (fail, error, lesson, miri); NN may be `all`
    alt NN                 files in solutions/NN-*/alt/
    hints NN               hints in labs/NN-*/hints.md
    variants DATA.json     entries of the benchmark data's "variants" (or "rows")
    data DATA.json PATH    a figure of a benchmark's data: PATH is keys and list indexes
                           joined by dots (variants.1.ratio), where a step `k=v&k2=v2`
                           picks the list entry with those fields (rows.variant=lab-19),
                           and A/B is the quotient of two such figures. A step `*` takes
                           every entry of a list, `*k=v` every entry with that field
                           (runs.*.rps: one figure per round; A/B then
                           pairs them round by round), and the marker states their median,
                           or `min` / `max` after PATH. The figure in prose must be the
                           value rounded to as many decimals as it is written with.
                           `percent` after PATH reads a ratio as a change: 1.62 is +62 (%)
    prose                  a number that counts nothing the repository can recompute

Lint: a plural count of tests, errors, wrong answers or variants ("3 tests", "seven
errors") in a page or README with no marker after it is an error too, so a new count
cannot be written unchecked. Fenced code blocks are skipped.

    python3 scripts/lib/counts.py            check every page and README
    python3 scripts/lib/counts.py --list     also print every marked count
"""
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
NUMBER = r"(\d[\d,]*|" + "|".join(WORDS) + r")"
MARKER = re.compile(r"<!--\s*count:\s*(.*?)\s*-->")
# A plural count of what the repository tests or generates; a few words may sit between
# the number and the noun ("9 more tests", "three timing tests").
FILLER = r"(?!(?:the|a|an|of|in|on|to|and|or|its|their|these|those|that|which|is|are|was|were|" \
         r"has|have|pass|passes|fail|fails|all|every|but)\b)[\w`'-]+"
CLAIM = re.compile(r"\b" + NUMBER + r"((?:\s+" + FILLER + r"){0,2}?)\s+(tests|errors|wrong answers|variants)\b",
                   re.IGNORECASE)
TEST_FN = re.compile(r"#\[(?:tokio::)?test\b[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*(?:async\s+)?fn\s+(\w+)")


def files():
    yield from sorted((ROOT / "src").rglob("*.md"))
    yield from sorted(ROOT.glob("labs/[0-9][0-9]-*/README.md"))
    yield from sorted(ROOT.glob("labs/[0-9][0-9]-*/hints.md"))
    yield ROOT / "README.md"


def lab_dir(base, nn):
    found = sorted((ROOT / base).glob(f"{nn}-*"))
    if not found:
        raise ValueError(f"no {base}/{nn}-*")
    return found[0]


def test_names(nn, only=None):
    names = []
    for f in sorted((lab_dir("labs", nn) / "tests").glob("*.rs")):
        if only and f.name != only:
            continue
        text = re.sub(r"//[^\n]*", "", f.read_text())
        names += TEST_FN.findall(text)
    if only and not names:
        raise ValueError(f"no tests in labs/{nn}-*/tests/{only}")
    return names


def compute(spec):
    parts = spec.split()
    kind, args = parts[0], parts[1:]
    if kind == "tests":
        nn = args[0]
        if len(args) > 1 and args[1].startswith("/"):
            pattern = re.compile(" ".join(args[1:]).strip("/"))
            return sum(1 for n in test_names(nn) if pattern.search(n))
        return len(test_names(nn, args[1] if len(args) > 1 else None))
    if kind == "errors":
        text = (ROOT / args[0]).read_text()
        errors = [l for l in text.splitlines()
                  if re.match(r"error(\[E\d{4}\])?:", l) and "aborting due to" not in l]
        if len(args) > 1:
            errors = [l for l in errors if l.startswith(f"error[{args[1]}]")]
        return len(errors)
    if kind in ("wrong", "alt"):
        if args[0] == "all":
            found = sorted(ROOT.glob(f"solutions/[0-9][0-9]-*/{kind}/*.rs"))
        else:
            found = sorted((lab_dir("solutions", args[0]) / kind).glob("*.rs"))
        if len(args) > 1:
            found = [f for f in found if f"//! expect-{args[1]}" in f.read_text()]
        return len(found)
    if kind == "hints":
        return (lab_dir("labs", args[0]) / "hints.md").read_text().count("<details>")
    if kind == "variants":
        data = json.loads((ROOT / args[0]).read_text())
        for key in ("variants", "rows"):
            if key in data:
                return len(data[key])
        raise ValueError(f"{args[0]} has no variants or rows")
    raise ValueError(f"unknown kind {kind!r}")


def stated(before, decimals=False):
    """The number right before a marker: the last number in the text before it (with its
    decimals, for a figure of a benchmark's data)."""
    if decimals:
        found = re.findall(r"[-+]?\d[\d,]*(?:\.\d+)?", before)
        return found[-1].replace(",", "").lstrip("+") if found else None
    found = re.findall(r"\b" + NUMBER + r"\b", before, re.IGNORECASE)
    if not found:
        return None
    word = found[-1].lower().replace(",", "")
    return WORDS.get(word, int(word) if word.isdigit() else None)


def walk(data, path, file):
    """The number at PATH in DATA: keys and list indexes joined by dots; a step such as
    `variant=lab-19&work=plain` picks the list entry whose fields have those values."""
    value = data
    keys = path.split(".")
    for i, key in enumerate(keys):
        if key.startswith("*"):
            # Every entry of a list (rounds), or every one with the fields `*k=v&k2=v2`
            # names: a list of figures.
            wanted = dict(pair.split("=", 1) for pair in key[1:].split("&")) if key[1:] else {}
            rest = ".".join(keys[i + 1:])
            return [walk(v, rest, file) if rest else v for v in value
                    if not wanted or all(str(v.get(k)) == w for k, w in wanted.items())]
        if isinstance(value, list) and "=" in key:
            wanted = dict(pair.split("=", 1) for pair in key.split("&"))
            found = [v for v in value if isinstance(v, dict)
                     and all(str(v.get(k)) == w for k, w in wanted.items())]
            if len(found) != 1:
                raise ValueError(f"{key} matches {len(found)} entries in {path} of {file}")
            value = found[0]
        else:
            value = value[int(key)] if isinstance(value, list) else value[key]
    if not isinstance(value, (int, float)):
        raise ValueError(f"{path} in {file} is not a number: {value!r}")
    return value


def data_value(spec):
    """The value a `data FILE PATH [percent]` marker names; PATH may be a quotient,
    `A/B`, of two figures of the same file (a ratio the page states)."""
    parts = spec.split()
    data = json.loads((ROOT / parts[1]).read_text())
    value = None
    for path in parts[2].split("/"):
        figure = walk(data, path, parts[1])
        if value is None:
            value = figure
        elif isinstance(value, list):
            value = [a / b for a, b in zip(value, figure, strict=True)]
        else:
            value = value / figure
    options = parts[3:]
    if isinstance(value, list):
        # Figures per round: their median, or `min` / `max` (a range the page states).
        pick = {"min": min, "max": max}.get(next((o for o in options if o in ("min", "max")), ""),
                                            statistics.median)
        value = pick(value)
    if "percent" in options:
        value = (value - 1) * 100
    return value


def same_figure(written, value):
    """Does WRITTEN ("1.62", "253.2", "62") say VALUE, rounded as written?"""
    places = len(written.split(".")[1]) if "." in written else 0
    return abs(float(written) - value) <= 0.5 * 10 ** -places + 1e-9


def check(path, listing):
    problems, checked = [], 0
    fenced = False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        where = f"{path.relative_to(ROOT)}:{n}"
        markers = list(MARKER.finditer(line))
        for m in markers:
            spec = m.group(1)
            if spec == "prose":
                continue
            if spec.startswith("data "):
                written = stated(line[:m.start()], decimals=True)
                try:
                    value = data_value(spec)
                except (ValueError, OSError, IndexError, KeyError) as e:
                    problems.append(f"{where}: count: {spec}: {e}")
                    continue
                checked += 1
                if listing:
                    print(f"{where}: {written} ({spec} = {value})")
                if written is None or not same_figure(written, value):
                    problems.append(f"{where}: says {written}, but {spec} is {value:g}")
                continue
            said = stated(line[:m.start()])
            try:
                real = compute(spec)
            except (ValueError, OSError, IndexError) as e:
                problems.append(f"{where}: count: {spec}: {e}")
                continue
            checked += 1
            if listing:
                print(f"{where}: {said} ({spec})")
            if said != real:
                problems.append(f"{where}: says {said}, but {spec} is {real}")
        for claim in CLAIM.finditer(line):
            rest = line[claim.end():]
            if not re.match(r"\s*[)`*_,.]*\s*<!--\s*count:", rest):
                problems.append(f"{where}: {claim.group(0)!r} has no <!-- count: … --> after it "
                                f"(what does it count? see scripts/lib/counts.py)")
    return problems, checked


def self_test():
    """Proves the check can fail: a page with a wrong count, an unmarked one, a right one."""
    lab = sorted(ROOT.glob("labs/[0-9][0-9]-*"))[0].name[:2]
    real = compute(f"tests {lab}")
    page = ROOT / "target" / "counts-self-test.md"
    page.parent.mkdir(exist_ok=True)
    page.write_text(
        f"All {real} tests<!-- count: tests {lab} --> pass.\n"
        f"All {real + 1} tests<!-- count: tests {lab} --> pass.\n"
        f"Three more tests pass.\n"
        "```rust\n// 5 tests in a code block are not prose\n```\n")
    data = ROOT / "src/part1/data/zero-cost.json"
    ratio = json.loads(data.read_text())["variants"][1]["ratio"]
    page.write_text(page.read_text() +
                    f"A ratio of {ratio:.2f}<!-- count: data src/part1/data/zero-cost.json variants.1.ratio -->.\n"
                    f"A ratio of {ratio + 0.1:.2f}<!-- count: data src/part1/data/zero-cost.json variants.1.ratio -->.\n")
    problems, checked = check(page, False)
    page.unlink()
    assert checked == 4, (checked, problems)
    assert len(problems) == 3, problems
    assert f"but data src/part1/data/zero-cost.json variants.1.ratio is" in problems[2], problems
    assert f"says {real + 1}, but tests {lab} is {real}" in problems[0], problems
    assert "'Three more tests' has no" in problems[1], problems
    print("counts: self-test: a wrong count, an unmarked one and a wrong figure are caught")


def main():
    self_test()
    listing = "--list" in sys.argv
    problems, checked = [], 0
    for path in files():
        p, c = check(path, listing)
        problems += p
        checked += c
    for p in problems:
        print(p)
    print(f"counts: {checked} counts in prose checked against their sources, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
