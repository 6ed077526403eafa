#!/usr/bin/env python3
"""An mdBook preprocessor (book.toml's [preprocessor.workshop]) for what the workshop shows
on the pages, from one source each:

- a page's `<!-- minutes: N -->` line stays, and a visible line follows it: "About N
  minutes." (scripts/minutes reads the same line for the schedules). A lab page says it
  in its "| Time |" row instead, so it gets no second line.
- `<!-- git-clone -->` becomes the command that clones the repository: `repo-url` in
  labs/Cargo.toml's [workspace.metadata.labs] if set, else the address of the `origin`
  remote (as on GitHub Actions, which builds the published book), else a sentence that
  says where to get it.
- an `{{#include …}}` of a file this copy does not have (a copy without `solutions/`, as
  an attendee may be given) becomes a note that names the file, instead of nothing: it
  runs before mdBook's own `links` preprocessor (book.toml), which would leave it empty.

mdBook runs it in the book's root: `supports RENDERER` (the html renderer only; the
markdown output, which the snippet tests read, is left as written), then the
[context, book] JSON on stdin, the book JSON on stdout.
"""
import json
import os
import re
import subprocess
import sys
import tomllib

MINUTES = re.compile(r"^<!-- minutes: (\d+) -->$", re.M)


def repo_url():
    try:
        with open("labs/Cargo.toml", "rb") as f:
            meta = tomllib.load(f).get("workspace", {}).get("metadata", {}).get("labs", {})
        if meta.get("repo-url"):
            return meta["repo-url"]
    except OSError:
        pass
    try:
        remote = subprocess.run(["git", "remote", "get-url", "origin"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    # git@github.com:owner/repo.git -> https://github.com/owner/repo.git
    ssh = re.fullmatch(r"git@([^:]+):(.+)", remote)
    if ssh:
        return "https://%s/%s" % ssh.groups()
    return remote if remote.startswith("https://") else None


def clone_block(url):
    if url:
        return "```text\ngit clone %s\n```" % url
    return ("Your instructor gives you its address (this copy of the book was built without "
            "one: `repo-url` in `labs/Cargo.toml`).")


INCLUDE = re.compile(r"\{\{#(?:include|rustdoc_include)\s+([^}\s:]+)[^}]*\}\}")


def missing_includes(content, page):
    """Each include of a file that is not there becomes a line saying where it would be."""
    here = os.path.dirname(os.path.join("src", page or ""))

    def note(m):
        target = os.path.normpath(os.path.join(here, m.group(1)))
        if os.path.exists(target):
            return m.group(0)
        return ("(Not in this copy: this part is quoted from `%s`, which the copy of the "
                "course you have does not include.)" % target)

    return INCLUDE.sub(note, content)


def rewrite(content, url, page=None):
    content = missing_includes(content, page)
    if "| Time | about" not in content:
        content = MINUTES.sub(lambda m: "%s\n\n_About %s minutes._" % (m.group(0), m.group(1)),
                              content, count=1)
    # Indented like the placeholder (it sits in a list item of the setup checklist).
    return re.sub(r"(?m)^([ \t]*)<!-- git-clone -->$",
                  lambda m: "\n".join(m.group(1) + line for line in clone_block(url).splitlines()),
                  content)


def walk(items, url):
    for item in items:
        chapter = item.get("Chapter") if isinstance(item, dict) else None
        if chapter:
            chapter["content"] = rewrite(chapter["content"], url, chapter.get("source_path") or chapter.get("path"))
            walk(chapter["sub_items"], url)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "supports":
        sys.exit(0 if sys.argv[2:] == ["html"] else 1)
    _context, book = json.load(sys.stdin)
    walk(book["items"], repo_url())
    json.dump(book, sys.stdout)


if __name__ == "__main__":
    main()
