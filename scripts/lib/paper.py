"""The workshop's paper, as HTML for scripts/check-book/pdf.mjs to print (scripts/pdf runs it).

    python3 scripts/lib/paper.py USAGE_FILE OUT_DIR

USAGE_FILE holds what `cargo labs help` prints. Writes, generated from their sources so
they cannot drift from them:

  OUT_DIR/card.html          one page for attendees: the runner's commands and what each
                             does (parsed from USAGE_FILE), the toolchain to install
                             (rust-toolchain.toml), the labs (their Cargo.toml) and where
                             the book, the hints and the solutions are
  OUT_DIR/sheets.html        every lab's instructor's sheet, each on its own page
  OUT_DIR/sheets/NN-slug.html  one lab's sheet: its minutes, what its starter fails with,
                             what its lesson forbids, what makes its tests hang, the hints
                             the runner reveals (labs/NN-slug/hints.md), the speaker notes of
                             its chapter, lab and solution pages (from the rendered book,
                             book/html), the wrong answers attendees write and how the tests
                             catch each (the headers of solutions/NN-slug/wrong/*.rs), and
                             the pages the runner sends them to (labs/runner/explain.toml)
  OUT_DIR/paper-sources.json  what each page was made from, for scripts/lib/paper-check.py

OUT_DIR is expected inside the book's output (book/paper, next to book/html), in the
repository and in the offline kit alike, so the sheets link to the book on disk.
"""

import html
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIRECTIVE = re.compile(r"^(expect-fail|expect-error|expect-lesson|expect-miri|may-also-fail|replaces):\s*(.*)$")


def fail(message):
    sys.exit(f"paper: {message}")


def esc(text):
    return html.escape(text, quote=True)


def inline(text):
    """The little markdown the wrong/ headers use: `code`, **bold**, *emphasis*."""
    out = []
    for k, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if k % 2:
            out.append(f"<code>{esc(part[1:-1])}</code>")
        else:
            part = esc(part)
            part = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", part)
            part = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", part)
            out.append(part)
    return "".join(out)


def first_sentence(text):
    """Up to the first full stop outside `code` that ends a sentence."""
    in_code = False
    for i, c in enumerate(text):
        if c == "`":
            in_code = not in_code
        elif c == "." and not in_code and (i + 1 == len(text) or text[i + 1] == " "):
            before = text[: i + 1].split()[-1] if text[: i + 1].split() else ""
            if before.lower() in ("e.g.", "i.e.", "vs.", "etc.", "ch.", "cf."):
                continue
            return text[: i + 1]
    return text


# ---------------------------------------------------------------------------------------
# Sources

def labs():
    """Every lab, from labs/NN-slug/Cargo.toml's [package.metadata.lab], in order."""
    found = []
    for manifest in sorted((ROOT / "labs").glob("[0-9][0-9]-*/Cargo.toml")):
        meta = tomllib.loads(manifest.read_text())["package"]["metadata"]["lab"]
        folder = manifest.parent.name
        number = folder[:2]
        page = meta["page"]
        solution_page = page.replace(".md", "-solution.md")
        found.append({
            "number": number, "folder": folder, "title": meta["title"], "page": page,
            "solution_page": solution_page, "minutes": meta.get("minutes"),
            "starter_errors": meta.get("starter-errors", []),
            "starter_fails": meta.get("starter-fails", []),
            "starter_lesson": meta.get("starter-lesson", []),
            "forbid": meta.get("forbid", []), "allow": meta.get("allow", {}),
            "hang_hint": meta.get("hang-hint"), "miri": meta.get("miri", False),
        })
    if not found:
        fail("no labs under labs/")
    return found


def summary_titles():
    """SUMMARY.md's title of every page, by path."""
    titles = {}
    for line in (ROOT / "src/SUMMARY.md").read_text().splitlines():
        m = re.match(r"^\s*(?:- )?\[([^\]]+)\]\(([^)]+\.md)\)", line)
        if m:
            titles[m.group(2)] = m.group(1)
    return titles


def chapter_pages(lab, titles):
    """The pages numbered like the lab, in SUMMARY order: chapter, lab, measured, solution."""
    part = lab["page"].split("/")[0]
    prefix = f"{part}/{lab['number']}-"
    return [p for p in titles if p.startswith(prefix)]


def speaker_notes(book_html, page):
    """The inner HTML of the page's "Speaker notes" box, from the rendered book."""
    file = book_html / page.replace(".md", ".html")
    if not file.exists():
        fail(f"{file} is missing: build the book first (scripts/build-book)")
    text = file.read_text()
    notes = []
    for m in re.finditer(r"<details>\s*<summary>\s*Speaker notes\s*</summary>", text):
        depth, pos = 1, m.end()
        for tag in re.finditer(r"<(/?)details\b[^>]*>", text[pos:]):
            depth += -1 if tag.group(1) else 1
            if depth == 0:
                notes.append(text[pos:pos + tag.start()].strip())
                break
        else:
            fail(f"{file}: a Speaker notes box without its </details>")
    return notes


def relink(fragment, page, sheet_dir, book_html):
    """Links in a page's HTML, made to work from a sheet (relative to sheet_dir)."""
    page_dir = (book_html / page).parent
    page_file = book_html / page.replace(".md", ".html")

    def fix(m):
        href = m.group(2)
        if re.match(r"^[a-z]+:", href):
            return m.group(0)
        target = page_file if href.startswith("#") else page_dir / href.split("#")[0]
        anchor = href[href.index("#"):] if "#" in href else ""
        rel = os.path.relpath(target, sheet_dir)
        return f'{m.group(1)}"{esc(rel)}{esc(anchor)}"'
    return re.sub(r'(href=)"([^"]*)"', fix, fragment)


def hints(lab):
    """The summaries of labs/NN-slug/hints.md's boxes, in the order the runner reveals them."""
    file = ROOT / "labs" / lab["folder"] / "hints.md"
    if not file.exists():
        return []
    return [re.sub(r"<[^>]+>", "", s).strip() for s in re.findall(r"<summary>(.*?)</summary>", file.read_text(), re.S)]


def wrong_answers(lab):
    """Each solutions/NN-slug/wrong/*.rs: what it does wrong, and how the tests catch it."""
    answers = []
    for file in sorted((ROOT / "solutions" / lab["folder"] / "wrong").glob("*.rs")):
        prose, how = [], {}
        for line in file.read_text().splitlines():
            if not line.startswith("//"):
                break  # the header ends at the code; `// ANCHOR` lines may sit inside it
            if not line.startswith("//!"):
                continue
            body = line[3:].strip()
            d = DIRECTIVE.match(body)
            if d:
                how[d.group(1)] = d.group(2).strip()
            elif body:
                prose.append(body)
        text = " ".join(prose)
        if not text or not how:
            fail(f"{file.relative_to(ROOT)}: no //! header saying what is wrong and how it fails")
        if "expect-fail" in how:
            caught = "fails " + ", ".join(f"<code>{esc(t.strip())}</code>" for t in how["expect-fail"].split(","))
        elif "expect-error" in how:
            codes = [c.strip() for c in how["expect-error"].split(",")]
            caught = "does not compile: " + ", ".join(f"<code>{esc(c)}</code>" for c in codes)
        elif "expect-lesson" in how:
            kept = ", ".join(f"<code>{esc(k.strip())}</code>" for k in how["expect-lesson"].split(","))
            caught = f"passes the tests; the runner says not done, for {kept}"
        elif "expect-miri" in how:
            caught = f"passes the tests; Miri reports {inline(how['expect-miri'])}"
        else:
            fail(f"{file.relative_to(ROOT)}: no expect-… line")
        summary = first_sentence(text)
        summary = re.sub(r"^Wrong(?: \([^)]*\))?[:,]?\s*", "", summary)
        answers.append({"name": file.stem, "summary": summary, "caught": caught})
    return answers


def explained(lab, table):
    """explain.toml's entries the runner prints for this lab's starter."""
    rows = []
    for entry in table.get("entry", []):
        mine = lab["number"] in entry.get("labs", [])
        general = "labs" not in entry and set(entry.get("codes", [])) & set(lab["starter_errors"])
        if mine or general:
            rows.append((entry["name"], entry.get("see", [])))
    return rows


def book_url():
    """The book online, as the runner finds it (labs/runner/src/labs.rs): book-url in
    labs/Cargo.toml, or the GitHub Pages address of the origin remote."""
    meta = tomllib.loads((ROOT / "labs/Cargo.toml").read_text()).get("workspace", {}).get("metadata", {})
    url = meta.get("labs", {}).get("book-url")
    if url:
        return url.rstrip("/")
    try:
        remote = subprocess.run(["git", "-C", str(ROOT), "remote", "get-url", "origin"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.match(r"^(?:https://github\.com/|git@github\.com:)([^/]+)/([^/]+?)(?:\.git)?/?$", remote)
    return f"https://{m.group(1).lower()}.github.io/{m.group(2)}" if m else None


def audience(description):
    """Whom a command of the usage text is for: its description may start `maintainers:`
    (left off the card) or `instructors:` (in a table of their own)."""
    m = re.match(r"^(maintainers|instructors):", description, re.I)
    return m.group(1).lower() if m else "attendees"


def parse_usage(text):
    """`cargo labs help`: (command, what it does) pairs and (option, what it does) pairs.
    A line that starts a command or option has its words, two spaces or more, then its
    description; deeper-indented lines continue the description above."""
    commands, options = [], []
    section = commands
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.startswith("options:"):
            section = options
            continue
        line = re.sub(r"^usage:", "      ", line)
        m = re.match(r"^\s*((?:cargo labs|-)\S*(?: \S+)*?)(?:\s{2,}(.*))?$", line)
        if m and (m.group(1).startswith("cargo labs") or m.group(1).startswith("-")):
            section.append([m.group(1), m.group(2) or ""])
        elif section:
            section[-1][1] = (section[-1][1] + " " + line.strip()).strip()
        else:
            fail(f"cannot read this line of the runner's usage: {raw!r}")
    if not commands:
        fail("no commands in the runner's usage text")
    return commands, options


# ---------------------------------------------------------------------------------------
# Pages

CSS = """
@page { size: A4; margin: 12mm 13mm; }
body { font-family: "Open Sans", "DejaVu Sans", sans-serif; font-size: 9pt; line-height: 1.35; color: #111; margin: 0; }
h1 { font-size: 15pt; margin: 0 0 2pt; }
h2 { font-size: 10.5pt; margin: 9pt 0 3pt; border-bottom: 1px solid #bbb; }
p { margin: 3pt 0; }
code { font-family: "Source Code Pro", "DejaVu Sans Mono", monospace; font-size: 0.92em; overflow-wrap: anywhere; }
pre { font-size: 8.5pt; white-space: pre-wrap; margin: 3pt 0; background: #f3f3f3; padding: 3pt 5pt; }
table { border-collapse: collapse; width: 100%; }
td, th { vertical-align: top; text-align: left; padding: 1.5pt 4pt; border-bottom: 1px solid #e3e3e3; overflow-wrap: anywhere; }
th { font-weight: 600; }
.meta { color: #444; }
.cols { columns: 2; column-gap: 8mm; }
.cols li, .wrong li { break-inside: avoid; }
ul, ol { margin: 2pt 0; padding-left: 14pt; }
li { margin: 1pt 0; }
.notes { border-left: 3px solid #b36b00; background: #fff8ec; padding: 1pt 6pt; margin: 3pt 0; }
.notes h3 { font-size: 9pt; margin: 3pt 0 1pt; }
.wrong li { margin: 2pt 0; }
.caught { color: #7a2e00; }
.caught code { font-size: 0.85em; }
section.sheet { break-before: page; }
section.sheet:first-of-type { break-before: auto; }
a { color: #1d4f91; text-decoration: none; }
"""


def document(title, body, fonts, css_extra=""):
    """A page with its print CSS; fonts: the book's fonts.css (mdBook ships the fonts), relative."""
    link = f'<link rel="stylesheet" href="{esc(fonts)}">\n' if fonts else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{esc(title)}</title>\n'
            f'{link}<style>{CSS}{css_extra}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n')


def card(all_labs, usage, commit, titles, fonts):
    commands, options = usage
    toolchain = tomllib.loads((ROOT / "rust-toolchain.toml").read_text())["toolchain"]
    install = (f"rustup toolchain install {toolchain['channel']} --profile {toolchain.get('profile', 'minimal')}"
               + (f" --component {','.join(toolchain['components'])}" if toolchain.get("components") else ""))
    serve = (ROOT / "scripts/serve").read_text()
    port = re.search(r'port="\$\{1:-\$\{PORT:-(\d+)\}\}"', serve)
    if not port:
        fail("scripts/serve: cannot find its default port (port=\"${1:-${PORT:-N}}\")")
    url = book_url()
    rows = "".join(f"<tr><td><code>{esc(c)}</code></td><td>{esc(d)}</td></tr>"
                   for c, d in commands if audience(d) == "attendees")
    for_instructors = [(c, re.sub(r"^instructors:\s*", "", d, flags=re.I)) for c, d in commands
                       if audience(d) == "instructors"]
    instructor_rows = "".join(f"<tr><td><code>{esc(c)}</code></td><td>{esc(d)}</td></tr>" for c, d in for_instructors)
    opts = "".join(f"<tr><td><code>{esc(c)}</code></td><td>{esc(d)}</td></tr>" for c, d in options)
    half = (len(all_labs) + 1) // 2
    lab_tables = "".join(
        '<table class="labs">' + "".join(
            f"<tr><td><strong>{l['number']}</strong></td><td>{esc(l['title'])}</td><td>{l['minutes']} min</td>"
            f"<td><code>{esc(l['page'].split('/')[0])}</code></td></tr>" for l in chunk) + "</table>"
        for chunk in (all_labs[:half], all_labs[half:]))
    where = [
        ("The book",
         "offline kit: open <code>book/html/index.html</code>; a clone: <code>scripts/serve</code>, then "
         f"<code>http://127.0.0.1:{port.group(1)}</code>" + (f"; online: <code>{esc(url)}</code>" if url else "")
         + "; as PDF: <code>book/paper/</code> (the attendee edition has no solutions)."),
        ("A lab", "<code>labs/NN-slug/</code>: the task in <code>README.md</code>, your code in "
                  "<code>src/lib.rs</code>, the tests in <code>tests/</code>."),
        ("Hints", "<code>cargo labs hint NN</code> reveals the next one; they are also folded on the lab's page."),
        ("Solutions", "the page after each lab (<code>book/html/partN/NN-slug-solution.html</code>), which the "
                      "runner points to once the lab is done; in a clone, <code>solutions/NN-slug/src/lib.rs</code>."),
        ("Stuck", "the runner names the page that explains a known error (<code>cargo labs explain</code> lists "
                  f"them); then \"{esc(titles.get('appendix/faq.md', 'When you get stuck'))}\" "
                  "(<code>book/html/appendix/faq.html</code>); then ask."),
    ]
    where_rows = "".join(f"<tr><th>{w}</th><td>{d}</td></tr>" for w, d in where)
    body = f"""<h1>cargo labs: the command card</h1>
<p class="meta">Async Rust Without Arc · {esc(commit)} · generated from <code>cargo labs help</code> and the labs' <code>Cargo.toml</code></p>
<h2>Before the day</h2>
<pre>{esc(install)}
cd labs             # in a clone of the repository, or in the unpacked offline kit
cargo labs          # builds once (a minute), then the board: every lab red</pre>
<h2>In <code>labs/</code>, during the day</h2>
<table class="commands">{rows}</table>
<h2>Options, with any command</h2>
<table class="commands">{opts}</table>
{f'<h2>For the instructor</h2><table class="commands">{instructor_rows}</table>' if instructor_rows else ''}
<h2>Where things are</h2>
<table>{where_rows}</table>
<h2>The labs: folder <code>labs/NN-slug/</code>, page <code>book/html/partN/NN-slug.html</code></h2>
<div class="two">{lab_tables}</div>
"""
    return document("cargo labs: the command card", body, fonts, css_extra="""
body { font-size: 8.5pt; }
table.commands { table-layout: fixed; }
table.commands td:first-child { width: 36%; }
th { white-space: nowrap; width: 5.5em; }
td, th { padding-top: 1pt; padding-bottom: 1pt; }
div.two { display: flex; gap: 6mm; }
div.two > table { flex: 1; }
table.labs td:first-child, table.labs td:last-child { white-space: nowrap; width: 1%; }
table.labs { font-size: 8pt; }
table.labs td { padding-top: 0.3pt; padding-bottom: 0.3pt; }
table.labs td:nth-child(3) { white-space: nowrap; }
""")


def sheet(lab, titles, book_html, sheet_dir, table):
    pages = chapter_pages(lab, titles)
    if lab["page"] not in pages:
        fail(f"lab {lab['number']}: its page {lab['page']} is not in SUMMARY.md")
    html_path = lambda p: os.path.relpath(book_html / p.replace(".md", ".html"), sheet_dir)  # noqa: E731
    links = " · ".join(
        f'<a href="{esc(html_path(p))}">{esc(titles[p])}</a>' for p in pages)
    starter = []
    if lab["starter_errors"]:
        starter.append("does not compile: " + ", ".join(f"<code>{esc(e)}</code>" for e in lab["starter_errors"]))
    if lab["starter_fails"]:
        starter.append("fails " + ", ".join(f"<code>{esc(t)}</code>" for t in lab["starter_fails"]))
    if lab["starter_lesson"]:
        starter.append("passes its tests but uses " + ", ".join(f"<code>{esc(t)}</code>" for t in lab["starter_lesson"]))
    forbid = ", ".join(f"<code>{esc(f)}</code>" for f in lab["forbid"]) or "the runner's default set only"
    allow = "".join(f"<li><code>{esc(k)}</code> allowed: {esc(v)}</li>" for k, v in lab["allow"].items())
    notes = []
    for p in pages:
        for n in speaker_notes(book_html, p):
            notes.append(f'<div class="notes"><h3>{esc(titles[p])}</h3>{relink(n, p, sheet_dir, book_html)}</div>')
    hint_items = "".join(f"<li>{esc(re.sub(r'^Hint [0-9]+: *', '', h))}</li>" for h in hints(lab))
    answers = wrong_answers(lab)
    wrong_items = "".join(
        f"<li><code>{esc(a['name'])}</code>: {inline(a['summary'])} <span class=\"caught\">→ {a['caught']}</span></li>"
        for a in answers)
    runner = "".join(
        f"<li>{esc(name)}: " + ", ".join(
            f'<a href="{esc(html_path(s.split("#")[0]))}{esc("#" + s.split("#")[1] if "#" in s else "")}"><code>{esc(s.replace(".md", ".html"))}</code></a>'
            for s in see) + "</li>" for name, see in explained(lab, table))
    body = f"""<section class="sheet" id="lab-{lab['number']}">
<h1>Lab {lab['number']}: {esc(lab['title'])}</h1>
<p class="meta">{lab['minutes']} minutes · <code>labs/{esc(lab['folder'])}/</code> · {links}</p>
<h2>What the room sees first</h2>
<p>The starter {'; '.join(starter) or 'fails its tests'}.
The lab is done when its tests pass and its code keeps none of: {forbid}{' (and Miri agrees)' if lab['miri'] else ''}.</p>
{f'<ul>{allow}</ul>' if allow else ''}
{f'<p><strong>If the tests hang:</strong> {esc(lab["hang_hint"])}</p>' if lab['hang_hint'] else ''}
{f'<h2>Hints, in the order <code>cargo labs hint {lab["number"]}</code> reveals them</h2><ol>{hint_items}</ol>' if hint_items else ''}
{f'<h2>The runner sends them to</h2><ul>{runner}</ul>' if runner else ''}
<h2>Speaker notes</h2>
{''.join(notes) or '<p>None on these pages.</p>'}
<h2>Wrong answers attendees write ({len(answers)}, each proven red by <code>scripts/test</code>)</h2>
<ul class="wrong">{wrong_items}</ul>
</section>"""
    return body, {"number": lab["number"], "title": lab["title"], "pages": pages,
                  "speaker_notes": len(notes), "hints": len(hints(lab)),
                  "wrong": [a["name"] for a in answers]}


def main():
    if len(sys.argv) != 3:
        fail("usage: python3 scripts/lib/paper.py USAGE_FILE OUT_DIR")
    usage_text = Path(sys.argv[1]).read_text()
    out = Path(sys.argv[2]).resolve()
    book_html = out.parent / "html"
    if not (book_html / "index.html").exists():
        fail(f"no book at {book_html}: OUT_DIR must sit next to book/html (e.g. book/paper)")
    commit = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=commit %h, %cs"],
                            capture_output=True, text=True).stdout.strip() or "not from git"
    titles = summary_titles()
    all_labs = labs()
    table = tomllib.loads((ROOT / "labs/runner/explain.toml").read_text())
    usage = parse_usage(usage_text)
    fonts_css = sorted((book_html / "fonts").glob("fonts*.css"))
    fonts = lambda folder: os.path.relpath(fonts_css[0], folder) if fonts_css else None  # noqa: E731

    (out / "sheets").mkdir(parents=True, exist_ok=True)
    (out / "card.html").write_text(card(all_labs, usage, commit, titles, fonts(out)))
    bodies, sources = [], []
    for lab in all_labs:
        body, source = sheet(lab, titles, book_html, out, table)
        bodies.append(body)
        sources.append(source)
        own, _ = sheet(lab, titles, book_html, out / "sheets", table)
        (out / "sheets" / f"{lab['folder']}.html").write_text(
            document(f"Lab {lab['number']}: instructor's sheet", own, fonts(out / "sheets")))
    index = "".join(f'<li><a href="#lab-{s["number"]}">Lab {s["number"]}: {esc(s["title"])}</a></li>' for s in sources)
    (out / "sheets.html").write_text(document(
        "Instructor's sheets",
        f'<h1>Instructor\'s sheets</h1><p class="meta">One per lab, each on its own page · {esc(commit)}</p>'
        f'<ul class="cols index">{index}</ul>' + "".join(bodies),
        fonts(out), css_extra="ul.index { break-after: page; }"))
    (out / "paper-sources.json").write_text(json.dumps({
        "commit": commit,
        "commands": [c for c, d in usage[0] if audience(d) != "maintainers"],
        "options": [c for c, _ in usage[1]],
        "labs": sources,
    }, indent=2) + "\n")
    print(f"paper: card.html ({len(usage[0])} commands, {len(usage[1])} options, {len(all_labs)} labs), "
          f"sheets.html and sheets/*.html ({len(sources)} labs, {sum(len(s['wrong']) for s in sources)} wrong answers, "
          f"{sum(s['speaker_notes'] for s in sources)} speaker notes)")


if __name__ == "__main__":
    main()
