"""Checks the printed book and the workshop's paper from the PDFs themselves (pdfinfo,
pdftotext), against the sources they were made from (scripts/pdf --check runs it, and
scripts/offline-kit --test runs it on the kit's copy).

    python3 scripts/lib/paper-check.py PAPER_DIR [USAGE_FILE]

PAPER_DIR is book/paper (or the kit's). USAGE_FILE: what `cargo labs help` prints now; the
card must name every attendee's command in it. Without it, the commands recorded when the
card was made (paper-sources.json) are used.

For each edition of the book (full; attendee):
  - every chapter of src/SUMMARY.md (the attendee edition: every one but the solution pages)
    starts a page with its own heading, in SUMMARY's order, the solution pages after Part V
    in the full edition; each part starts with its title page; the attendee edition has
    no solution page and no speaker notes, the full one every speaker-notes box of src/;
  - pages within a range: at least one per chapter and part (each starts a page), and at
    least MIN_WORDS_PER_PAGE words per page on average (blank or half-empty pages, giant
    diagrams and double-spaced code push the count up and the density down);
  - no diagram left as mermaid source: no line of the text is the first line of a mermaid
    block of src/ (`flowchart LR`, `sequenceDiagram`, …) or a `%%{init` directive;
  - nothing runs off the page: no word ends in the right margin (the left margin mirrored).
The card: one page, every command and option of the runner's usage but the maintainers',
every lab.
The sheets: every lab's own PDF and sheets.pdf, each sheet starting a page with the lab's
title, naming each of its wrong answers (solutions/NN-slug/wrong/*.rs) and opening with the
first words of each speaker-notes box of its pages.
"""

import html
import re
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper import audience, parse_usage  # noqa: E402  (the card's own reading of the usage text)

ROOT = Path(__file__).resolve().parents[2]
NAME = "async-rust-without-arc"
MIN_WORDS_PER_PAGE = 200
MERMAID_KEYWORDS = re.compile(
    r"^(flowchart|graph|sequenceDiagram|stateDiagram(-v2)?|classDiagram|erDiagram|gantt|pie|"
    r"xychart-beta|quadrantChart|timeline|mindmap|block-beta|journey|gitGraph)(?=\s|$)")
problems = []


def problem(text):
    problems.append(text)


def squash(text):
    """Letters and digits only: pdftotext spaces inline code and breaks lines its own way."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


def plain_heading(markdown):
    """A `# Heading` as it reads: without backticks, escapes, links or emphasis."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return html.unescape(re.sub(r"[`*_\\]", "", text)).strip()


def pdf_pages(pdf):
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = text.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    return pages


def page_count(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def first_lines(page, n=4):
    return squash(" ".join([line for line in page.splitlines() if line.strip()][:n]))


def margins(pdf):
    """(page, word, how far into the right margin) for words that end past the text's right
    edge: the page's width less the left margin, which is where the leftmost word of the
    whole document starts (the margins are the same on both sides)."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = []
    for page in re.split(r"<page ", out)[1:]:
        width = float(re.match(r'width="([\d.]+)"', page).group(1))
        pages.append((width, [(float(a), float(b), html.unescape(w)) for a, b, w in re.findall(
            r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', page)]))
    left = min((a for _, words in pages for a, _, _ in words), default=0)
    found = []
    for k, (width, words) in enumerate(pages, start=1):
        for _, right, word in words:
            if right > width - left + 1:
                found.append((k, word, round(right - (width - left), 1)))
    return found


def summary():
    """SUMMARY.md: (part title, page path, SUMMARY title, the page's own heading) in order."""
    rows, part = [], None
    for line in (ROOT / "src/SUMMARY.md").read_text().splitlines():
        h = re.match(r"^# (.+)$", line)
        if h and h.group(1) != "Summary":
            part = h.group(1).strip()
            continue
        m = re.match(r"^\s*(?:- )?\[([^\]]+)\]\(([^)]+\.md)\)", line)
        if m:
            source = (ROOT / "src" / m.group(2)).read_text()
            heading = re.search(r"^# (.+)$", source, re.M)
            rows.append((part, m.group(2), m.group(1), plain_heading(heading.group(1)) if heading else m.group(1)))
    return rows


def code_blocks(print_html, count):
    """Each chapter's code blocks as the reader sees them (hidden `# ` lines left out), from
    mdBook's print page, which the PDFs were printed from; a list per SUMMARY entry."""
    text = print_html.read_text()
    main = text[text.index("<main>"):text.rindex("</main>")]
    chapters = re.split(r'<div style="break-before: page; page-break-before: always;"></div>', main)
    if len(chapters) != count:
        problem(f"{print_html}: {len(chapters)} chapters, SUMMARY.md lists {count}")
    blocks = []
    for chapter in chapters:
        found = []
        for code in re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", chapter, re.S):
            code = re.sub(r'<span class="boring">.*?</span>', "", code, flags=re.S)
            found.append(html.unescape(re.sub(r"<[^>]+>", "", code)))
        blocks.append(found)
    return blocks


def mermaid_first_lines():
    """The first line of every mermaid block in the book's sources (included files too)."""
    firsts = set()
    for md in (ROOT / "src").rglob("*.md"):
        for block in re.findall(r"^```mermaid\n(.*?)^```", md.read_text(), re.M | re.S):
            lines = [line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("%%")]
            if lines:
                firsts.add(lines[0])
    return firsts


def speaker_note_openings(path):
    """The first few words of each speaker-notes box of a source page."""
    text = (ROOT / "src" / path).read_text()
    openings = []
    for box in re.findall(r"<summary>Speaker notes</summary>\s*(.*?)</details>", text, re.S):
        words = re.sub(r"[`*_\[\]]|\([^)]*\.md[^)]*\)", "", box).split()
        words = [w for w in words if w not in ("-", "1.")]
        openings.append(" ".join(words[:6]))
    return openings


def check_edition(pdf, edition, rows, mermaid, blocks):
    if not pdf.exists():
        return problem(f"{pdf} is missing")
    count = page_count(pdf)
    pages = pdf_pages(pdf)
    if len(pages) != count:
        problem(f"{pdf.name}: pdfinfo says {count} pages, pdftotext found {len(pages)}")
    starts = [first_lines(p) for p in pages]
    chapters = [r for r in rows if edition == "full" or not r[1].endswith("-solution.md")]
    solutions = [r for r in chapters if r[1].endswith("-solution.md")]
    parts = sorted({r[0] for r in chapters if r[0]}, key=[r[0] for r in rows].index)
    if solutions:
        parts.append("Solutions")

    def page_of(title, after=0):
        key = squash(title)
        for k in range(after, len(starts)):
            if starts[k].startswith(key):
                return k
        return None

    # Chapters start pages in order: the book's order, the solution pages after it.
    found, last = {}, 0
    appendices = [r for r in chapters if (r[0] or "").startswith("Append")]
    for r in [r for r in chapters if r not in solutions and r not in appendices] + solutions + appendices:
        k = page_of(r[3], last)
        if k is None:
            anywhere = page_of(r[3])
            problem(f"{pdf.name}: chapter {r[1]} (\"{r[3]}\") does not start a page"
                    + (f" after page {last + 1} (it starts page {anywhere + 1}: out of order)" if anywhere is not None else ""))
            continue
        found[r[1]] = k
        last = k
    for part in parts:
        if page_of(part) is None:
            problem(f"{pdf.name}: no title page for {part}")
    if solutions and found:
        appendix = [found[r[1]] for r in chapters if r[1] in found and (r[0] or "").startswith("Append")]
        book = [found[r[1]] for r in chapters if r[1] in found and r not in solutions and not (r[0] or "").startswith("Append")]
        sol = [found[r[1]] for r in solutions if r[1] in found]
        if sol and book and min(sol) < max(book):
            problem(f"{pdf.name}: a solution page comes before the end of Part V")
        if sol and appendix and max(sol) > min(appendix):
            problem(f"{pdf.name}: a solution page comes after the appendices begin")
    if edition != "full":
        for r in rows:
            if r[1].endswith("-solution.md") and page_of(r[3]) is not None:
                problem(f"{pdf.name}: the attendee edition has the solution page {r[1]}")

    # Speaker notes: every box in the full edition, none in the attendee edition.
    notes = sum(len(re.findall(r"^\s*Speaker notes\s*$", p, re.M)) for p in pages)
    expected = sum(len(re.findall(r"<summary>Speaker notes</summary>", (ROOT / "src" / r[1]).read_text())) for r in chapters)
    if edition == "full" and notes != expected:
        problem(f"{pdf.name}: {notes} speaker-notes boxes printed, src/ has {expected} on these pages")
    if edition != "full" and notes:
        problem(f"{pdf.name}: {notes} speaker-notes boxes printed in the attendee edition")

    # Page count: one page at least per chapter, part, title and contents; dense enough.
    words = sum(len(p.split()) for p in pages)
    low = len(chapters) + len(parts) + 2
    high = words // MIN_WORDS_PER_PAGE
    if not low <= count <= high:
        problem(f"{pdf.name}: {count} pages, outside {low}..{high} (one per chapter and part at least; "
                f"{words} words at {MIN_WORDS_PER_PAGE} a page at most)")

    # Code not cut: every code block of these chapters is whole in the text (Chromium leaves
    # out what a box clips), and no word runs into the right margin.
    body = squash("".join("\n".join(line for line in p.rstrip().splitlines()[:-1]) if p.strip().splitlines()
                          and p.strip().splitlines()[-1].strip().isdigit() else p for p in pages))
    kept = [b for r, bs in zip(rows, blocks) if r in chapters for b in bs if squash(b)]
    cut = [b for b in kept if squash(b) not in body]
    for b in cut[:5]:
        problem(f"{pdf.name}: a code block is not whole in the PDF: {b.strip()[:70]!r}")
    wide = margins(pdf)
    for k, word, by in wide[:10]:
        problem(f"{pdf.name}: page {k}: \"{word}\" runs {by} pt into the right margin")

    # No mermaid source left.
    for k, p in enumerate(pages, start=1):
        for line in p.splitlines():
            s = line.strip()
            if s.startswith("%%{") or s in mermaid or (MERMAID_KEYWORDS.match(s) and len(s.split()) <= 2):
                problem(f"{pdf.name}: page {k} shows mermaid source: {s[:60]}")
    print(f"paper-check: {pdf.name}: {count} pages ({low}..{high}), {len(found)} of {len(chapters)} chapters start "
          f"a page in order, {len(parts)} parts, {notes} speaker notes, {words} words, {len(kept) - len(cut)} of "
          f"{len(kept)} code blocks whole, {len(wide)} words in the margin, "
          f"{pdf.stat().st_size / 1e6:.1f} MB")


def check_card(paper, usage_text, labs):
    pdf = paper / "card.pdf"
    if not pdf.exists():
        return problem(f"{pdf} is missing")
    count = page_count(pdf)
    if count != 1:
        problem(f"card.pdf has {count} pages, not one")
    text = squash(" ".join(pdf_pages(pdf)))
    commands, options = parse_usage(usage_text)
    wanted = [c for c, d in commands if audience(d) != "maintainers"] + [o for o, _ in options]
    for c in wanted:
        if squash(c) not in text:
            problem(f"card.pdf does not name `{c}` (from the runner's usage)")
    for number, title, _, _ in labs:
        if squash(f"{number}{title}") not in text:
            problem(f"card.pdf does not list lab {number} ({title})")
    print(f"paper-check: card.pdf: {count} page, {len(wanted)} commands and options, {len(labs)} labs, "
          f"{pdf.stat().st_size / 1e3:.0f} kB")


def check_sheets(paper, rows, labs):
    pdf = paper / "sheets.pdf"
    if not pdf.exists():
        return problem(f"{pdf} is missing")
    all_pages = pdf_pages(pdf)
    all_starts = [first_lines(p, 2) for p in all_pages]
    total_wrong = total_notes = 0
    for number, title, folder, part in labs:
        heading = squash(f"Lab {number}: {title}")
        if not any(s.startswith(heading) for s in all_starts):
            problem(f"sheets.pdf: lab {number}'s sheet does not start a page")
        own = paper / "sheets" / f"{folder}.pdf"
        if not own.exists():
            problem(f"{own} is missing")
            continue
        pages = pdf_pages(own)
        if not first_lines(pages[0], 2).startswith(heading):
            problem(f"sheets/{folder}.pdf does not start with \"Lab {number}: {title}\"")
        text = squash(" ".join(pages))
        for wrong in sorted((ROOT / "solutions" / folder / "wrong").glob("*.rs")):
            total_wrong += 1
            if squash(wrong.stem) not in text:
                problem(f"sheets/{folder}.pdf does not name the wrong answer {wrong.name}")
        for r in [r for r in rows if r[1].startswith(f"{part}/{number}-")]:
            for opening in speaker_note_openings(r[1]):
                total_notes += 1
                if squash(opening) not in text:
                    problem(f"sheets/{folder}.pdf lacks the speaker notes of {r[1]} (\"{opening}\")")
    print(f"paper-check: sheets.pdf ({len(all_pages)} pages) and sheets/*.pdf ({len(labs)}): "
          f"{total_wrong} wrong answers and {total_notes} speaker notes found, {pdf.stat().st_size / 1e6:.1f} MB")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python3 scripts/lib/paper-check.py PAPER_DIR [USAGE_FILE]")
    paper = Path(sys.argv[1])
    if len(sys.argv) == 3:
        usage_text = Path(sys.argv[2]).read_text()
    else:
        import json
        recorded = json.loads((paper / "paper-sources.json").read_text())
        usage_text = "\n".join(f"       {c}  x" for c in recorded["commands"]) + "\noptions:\n" + \
            "\n".join(f"       {o}  x" for o in recorded["options"])
    rows = summary()
    labs = []
    for manifest in sorted((ROOT / "labs").glob("[0-9][0-9]-*/Cargo.toml")):
        meta = tomllib.loads(manifest.read_text())["package"]["metadata"]["lab"]
        labs.append((manifest.parent.name[:2], meta["title"], manifest.parent.name, meta["page"].split("/")[0]))
    mermaid = mermaid_first_lines()
    blocks = code_blocks(paper.parent / "html" / "print.html", len(rows))
    check_edition(paper / f"{NAME}.pdf", "full", rows, mermaid, blocks)
    check_edition(paper / f"{NAME}-attendee.pdf", "attendee", rows, mermaid, blocks)
    check_card(paper, usage_text, labs)
    check_sheets(paper, rows, labs)
    for p in problems:
        print(f"FAIL {p}")
    print(f"paper-check: {'ok' if not problems else f'{len(problems)} problems'}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
