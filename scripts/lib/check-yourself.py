#!/usr/bin/env python3
"""Every chapter page ends with 2-4 "Check yourself" questions, in the format README
describes ("Check yourself: the questions at the end of a chapter").

A chapter page is a page of src/SUMMARY.md under a part folder (src/partN/) that is not a
lab page (its file name, without .md, is a folder of labs/, or its title starts "Lab NN")
nor a solution page (NAME-solution.md for such a lab). Pages still marked <!-- stub -->
are exempt until they are written. For each chapter page this checks:

- one `## Check yourself` section, followed by no other `##` heading but `## Your turn`
  and `## Further reading`;
- 2-4 questions, numbered `**1.`, `**2.`, ..., each with one answer folded in
  `<details>` / `<summary>Answer</summary>` / `</details>`;
- no `rust,ignore` block in a question (its code must be compiled);
- a "Does this compile?" question answers `**Yes` or `**No`, and its code is a
  `rust,compile_fail,E0XXX` block exactly when the answer is No;
- a "What does this print?" question has a plain `rust` block, and its answer opens
  with a `text` block: the snippets check compares the program's output with it
  (solutions/snippets/build.rs);
- any other question's answer starts with the answer in bold (`**B.**`).

Usage: scripts/lib/check-yourself.py [ROOT]   (exit 1 with one line per problem)
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
src = os.path.join(root, "src")
labs = os.path.join(root, "labs")
lab_folders = {d for d in os.listdir(labs) if re.match(r"\d\d-", d)}


def kind(title, path):
    """'chapter', 'lab', 'solution' or 'other' for a SUMMARY entry."""
    if not re.match(r"part\d+/", path):
        return "other"
    stem = os.path.basename(path)[:-3]
    if stem.endswith("-solution") and stem[: -len("-solution")] in lab_folders:
        return "solution"
    if stem in lab_folders:
        return "lab"
    if re.match(r"Lab \d+", title):
        return "solution" if title.endswith("solution") else "lab"
    return "chapter"


def fences(lines, start, end):
    """(info, first content line, closing line) of each fenced block in lines[start:end]."""
    blocks, i = [], start
    while i < end:
        if lines[i].startswith("```"):
            info, first = lines[i][3:].strip(), i + 1
            i += 1
            while i < end and lines[i].rstrip() != "```":
                i += 1
            blocks.append((info, first, i))
        i += 1
    return blocks


def check_page(path, lines):
    problems = []
    heads = [i for i, l in enumerate(lines) if l.rstrip() == "## Check yourself"]
    if len(heads) != 1:
        return ["has %d `## Check yourself` sections, wants 1" % len(heads)], {}
    start = heads[0]
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith("## ") or (lines[i].strip() == "<details>" and i + 1 < len(lines)
                                                  and "Speaker notes" in lines[i + 1])), len(lines))
    later = [l.strip() for l in lines[end:] if l.startswith("## ")]
    extra = [h for h in later if h not in ("## Your turn", "## Further reading")]
    if extra:
        problems.append("`## Check yourself` is not the last teaching section: %s follows it" % extra[0])

    blocks = fences(lines, start + 1, end)
    in_block = set()
    for _, first, close in blocks:
        in_block.update(range(first - 1, close + 1))
    questions = [i for i in range(start + 1, end) if i not in in_block and re.match(r"\*\*\d+\.", lines[i])]
    answers = [i for i in range(start + 1, end) if lines[i].strip() == "<summary>Answer</summary>"]
    if not 2 <= len(answers) <= 4:
        problems.append("has %d questions, wants 2-4" % len(answers))
    if len(questions) != len(answers):
        problems.append("has %d questions (`**N.`) but %d answers (`<summary>Answer</summary>`)"
                        % (len(questions), len(answers)))
        return problems, {}
    counts = {"compile": 0, "print": 0, "other": 0}
    for n, (q, a) in enumerate(zip(questions, answers), 1):
        label = "question %d (line %d)" % (n, q + 1)
        if not lines[q].startswith("**%d." % n):
            problems.append("%s is not numbered **%d." % (label, n))
        if not (q < a and (n == len(questions) or a < questions[n])):
            problems.append("%s: its answer is not between it and the next question" % label)
            continue
        close = next((i for i in range(a, end) if lines[i].strip() == "</details>"), None)
        if close is None or lines[a - 1].strip() != "<details>":
            problems.append("%s: the answer is not a `<details>` ... `</details>` block" % label)
            continue
        code = [b for b in blocks if q < b[1] < a]
        rust = [b for b in code if b[0].split(",")[0] == "rust"]
        if any("ignore" in b[0].split(",") for b in rust):
            problems.append("%s: a `rust,ignore` block; question code must compile" % label)
        body = [l.strip() for l in lines[a + 1:close] if l.strip()]
        first = body[0] if body else ""
        end_of_paragraph = next((i for i in range(q, a) if not lines[i].strip()), a)
        text = " ".join(lines[q:end_of_paragraph])
        if "Does this compile?" in text:
            counts["compile"] += 1
            if not rust:
                problems.append("%s asks whether code compiles but shows no rust block" % label)
            elif not (first.startswith("**Yes") or first.startswith("**No")):
                problems.append("%s: its answer must start with **Yes or **No" % label)
            else:
                failing = re.search(r"compile_fail,E\d{4}", rust[-1][0]) is not None
                if first.startswith("**No") and not failing:
                    problems.append("%s: answered No, but its block is not rust,compile_fail,E0XXX" % label)
                if first.startswith("**Yes") and "compile_fail" in rust[-1][0]:
                    problems.append("%s: answered Yes, but its block is compile_fail" % label)
        elif "What does this print?" in text:
            counts["print"] += 1
            if not rust or rust[-1][0] != "rust":
                problems.append("%s asks what code prints but has no plain ```rust block" % label)
            if first != "```text":
                problems.append("%s: its answer must open with a ```text block (the output)" % label)
        else:
            counts["other"] += 1
            if not first.startswith("**"):
                problems.append("%s: its answer must start with the answer in bold" % label)
    return problems, counts


def main():
    summary = open(os.path.join(src, "SUMMARY.md"), encoding="utf-8").read()
    failed, chapters, stubs = [], 0, 0
    totals = {"compile": 0, "print": 0, "other": 0}
    for title, path in re.findall(r"\[(.+?)\]\((.+?\.md)\)", summary):
        if kind(title, path) != "chapter":
            continue
        text = open(os.path.join(src, path), encoding="utf-8").read()
        if "<!-- stub -->" in text:
            stubs += 1
            continue
        chapters += 1
        problems, counts = check_page(path, text.splitlines())
        failed += ["src/%s: %s" % (path, p) for p in problems]
        for k, v in counts.items():
            totals[k] += v
    for line in failed:
        print(line)
    questions = sum(totals.values())
    print("check-yourself: %d chapter pages, %d questions (%d compile?, %d prints?, %d other); "
          "%d stub pages exempt: %s" % (chapters, questions, totals["compile"], totals["print"],
                                         totals["other"], stubs, "FAILED" if failed else "ok"))
    return 1 if failed else 0


sys.exit(main())
