//! "The book explains this": errors and panics the book covers, from one table
//! (labs/runner/explain.toml, embedded at build time). `check` and `watch` print the
//! entries a failure matches; `cargo labs explain` lists them; `cargo labs explain --check`
//! proves the FAQ page and the table agree (scripts/test runs it).

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use crate::labs::{Lab, Paths};
use crate::outcome::{Evaluation, Outcome};
use crate::style;

const TABLE: &str = include_str!("../explain.toml");
const FAQ: &str = "appendix/faq.md";

pub struct Entry {
    pub name: String,
    pub labs: Vec<String>,
    pub codes: Vec<String>,
    pub messages: Vec<String>,
    pub panics: Vec<String>,
    /// Mistakes lab-support's timeline recorder names ("lost-wake"): `check` and `watch`
    /// print them with a failing test's timeline (labs/runner/src/trace.rs).
    pub patterns: Vec<String>,
    pub faq: Option<String>,
    /// "part2/06-static.md#what-the-compiler-says"
    pub see: Vec<String>,
}

pub struct Table {
    pub entries: Vec<Entry>,
    pub faq_other: Vec<String>,
}

pub fn table() -> Result<Table, String> {
    parse(TABLE)
}

fn parse(text: &str) -> Result<Table, String> {
    let toml: toml::Table = text
        .parse()
        .map_err(|e| format!("labs/runner/explain.toml: {e}"))?;
    let strings = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    let mut entries = Vec::new();
    for e in toml
        .get("entry")
        .and_then(|e| e.as_array())
        .into_iter()
        .flatten()
    {
        let entry = Entry {
            name: e
                .get("name")
                .and_then(|n| n.as_str())
                .ok_or("labs/runner/explain.toml: an entry without `name`")?
                .to_owned(),
            labs: strings(e.get("labs")),
            codes: strings(e.get("codes")),
            messages: strings(e.get("messages")),
            panics: strings(e.get("panics")),
            patterns: strings(e.get("patterns")),
            faq: e.get("faq").and_then(|f| f.as_str()).map(str::to_owned),
            see: strings(e.get("see")),
        };
        entries.push(entry);
    }
    Ok(Table {
        entries,
        faq_other: strings(toml.get("faq-other")),
    })
}

impl Entry {
    fn applies_to(&self, lab: &Lab) -> bool {
        self.labs.is_empty() || self.labs.contains(&lab.number)
    }

    fn matches(&self, outcome: &Outcome) -> bool {
        match outcome {
            Outcome::DoesNotCompile { errors, .. } => errors.iter().any(|e| {
                e.code.as_ref().is_some_and(|c| self.codes.contains(c))
                    || self.messages.iter().any(|m| {
                        e.message.contains(m.as_str()) || e.labels.iter().any(|l| l.contains(m))
                    })
            }),
            Outcome::Failing { output, .. }
            | Outcome::Hung { output, .. }
            | Outcome::MiriFailed { output, .. } => {
                self.panics.iter().any(|p| output.contains(p.as_str()))
            }
            Outcome::BreaksLesson { .. } | Outcome::MiriNotRun { .. } | Outcome::Done { .. } => {
                false
            }
        }
    }
}

/// The entries that explain a lab's failure, the lab's own first.
pub fn matching<'t>(table: &'t Table, lab: &Lab, outcome: &Outcome) -> Vec<&'t Entry> {
    let mut found: Vec<&Entry> = table
        .entries
        .iter()
        .filter(|e| e.applies_to(lab) && e.matches(outcome))
        .collect();
    found.sort_by_key(|e| e.labs.is_empty());
    found
}

/// A book page's title, a section's heading, and whether it is still a stub.
struct Page {
    title: String,
    /// (heading text, mdBook's id)
    sections: Vec<(String, String)>,
    stub: bool,
}

fn read_page(src: &Path, page: &str) -> Option<Page> {
    let text = fs::read_to_string(src.join(page)).ok()?;
    let mut sections = Vec::new();
    let mut title = String::new();
    let mut used = HashSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        if level == 0 || level > 6 || !line[level..].starts_with(' ') {
            continue;
        }
        let heading = line[level..].trim().to_owned();
        if level == 1 && title.is_empty() {
            title = heading.replace('`', "");
        }
        let id = unique_id(&heading_id(&heading), &mut used);
        sections.push((heading, id));
    }
    Some(Page {
        title,
        sections,
        stub: text.contains("<!-- stub -->"),
    })
}

/// mdBook 0.5's heading id (mdbook-html's `id_from_content`) of a heading's text.
pub fn heading_id(heading: &str) -> String {
    let text: String = heading.chars().filter(|&c| c != '`').collect();
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c)
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

fn unique_id(id: &str, used: &mut HashSet<String>) -> String {
    if used.insert(id.to_owned()) {
        return id.to_owned();
    }
    (1..)
        .map(|n| format!("{id}-{n}"))
        .find(|c| used.insert(c.clone()))
        .expect("a free id")
}

/// A page as a learner can open it: its source in the repository (`src/…md`, served by
/// scripts/serve), or, in the offline kit, which has no src/, the rendered page on disk
/// (`…/book/html/…html`); with what it says (title, sections).
struct Found {
    page: Page,
    /// Where to open it, before any `#anchor`.
    at: String,
}

fn find_page(root: &Path, page: &str) -> Option<Found> {
    if let Some(p) = read_page(&root.join("src"), page) {
        return Some(Found {
            page: p,
            at: format!("src/{page}"),
        });
    }
    let rendered = root.join("book").join("html").join(crate::labs::html(page));
    let p = read_rendered(&rendered)?;
    Some(Found {
        page: p,
        at: rendered.display().to_string(),
    })
}

/// What a page rendered by mdBook says: its `<h1>` and the headings with their ids
/// (`<h2 id="x"><a class="header" href="#x">Text</a></h2>`).
fn read_rendered(file: &Path) -> Option<Page> {
    let html = fs::read_to_string(file).ok()?;
    let mut title = String::new();
    let mut sections = Vec::new();
    for piece in html.split("<h").skip(1) {
        let level = piece.chars().next().filter(|c| ('1'..='6').contains(c));
        let Some(level) = level else { continue };
        let Some(rest) = piece[1..].strip_prefix(" id=\"") else {
            continue;
        };
        let Some((id, rest)) = rest.split_once('"') else {
            continue;
        };
        let end = format!("</h{level}>");
        let inner = rest.split(end.as_str()).next().unwrap_or("");
        let text = unescape(&strip_tags(inner.split_once('>').map_or(inner, |(_, t)| t)));
        if level == '1' && title.is_empty() {
            title = text.clone();
        }
        sections.push((text, id.to_owned()));
    }
    Some(Page {
        title,
        sections,
        stub: html.contains("<!-- stub -->"),
    })
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.trim().to_owned()
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

/// "Why spawn needs 'static, section "What the compiler says": src/part2/06-static.md#…"
/// (in the offline kit: "…: /…/book/html/part2/06-static.html#…").
fn describe(root: &Path, target: &str) -> String {
    let (page, anchor) = target.split_once('#').unwrap_or((target, ""));
    let anchor_part = if anchor.is_empty() {
        String::new()
    } else {
        format!("#{anchor}")
    };
    let Some(Found { page: p, at }) = find_page(root, page) else {
        // Neither source nor rendered page: name it where the other pages are.
        let book = root.join("book").join("html");
        if !root.join("src").is_dir() && book.is_dir() {
            return format!(
                "{}{anchor_part}",
                book.join(crate::labs::html(page)).display()
            );
        }
        return format!("src/{target}");
    };
    format!("{}: {at}{anchor_part}", title_and_section(&p, anchor))
}

/// "Why spawn needs 'static, section "What the compiler says"", or `None` when the page
/// is not there (the room board shows it without the path).
pub fn place(root: &Path, target: &str) -> Option<String> {
    let (page, anchor) = target.split_once('#').unwrap_or((target, ""));
    let found = find_page(root, page)?;
    Some(title_and_section(&found.page, anchor))
}

/// A page's title, the section `anchor` names (if any) and whether it is a stub.
fn title_and_section(p: &Page, anchor: &str) -> String {
    let section = p
        .sections
        .iter()
        .find(|(_, id)| id == anchor)
        .map(|(h, _)| format!(", section \"{}\"", h.replace('`', "")))
        .unwrap_or_default();
    let stub = if p.stub { " (not written yet)" } else { "" };
    format!("{}{section}{stub}", p.title)
}

/// Where the book explains an entry: its pages and sections, then its FAQ entry.
pub fn places(paths: &Paths, entry: &Entry) -> Vec<String> {
    let mut places: Vec<String> = entry.see.iter().map(|t| describe(&paths.root, t)).collect();
    if let Some(heading) = &entry.faq {
        let faq = find_page(&paths.root, FAQ);
        let (at, sections) = match &faq {
            Some(f) => (f.at.clone(), f.page.sections.as_slice()),
            None => (format!("src/{FAQ}"), &[][..]),
        };
        // The FAQ's headings are its entries; a rendered one reads without backticks.
        let id = sections
            .iter()
            .find(|(h, _)| h == heading || *h == heading.replace('`', ""))
            .map(|(_, id)| format!("#{id}"))
            .unwrap_or_default();
        places.push(format!("When you get stuck: {at}{id}"));
    }
    places
}

/// Prints what the book says about this failure, if anything.
pub fn print(paths: &Paths, lab: &Lab, evaluation: &Evaluation) {
    let Ok(table) = table() else {
        return;
    };
    let found = matching(&table, lab, &evaluation.outcome);
    if found.is_empty() {
        return;
    }
    let plain = style::plain();
    if !plain {
        println!("\n{}", style::bold("The book explains this:"));
    }
    for entry in found {
        let places = places(paths, entry);
        if plain {
            style::say(&format!(
                "The book explains this ({}): {}.",
                entry.name,
                places.join("; ")
            ));
        } else {
            println!("  {}", entry.name);
            for place in places {
                println!("    {place}");
            }
        }
    }
}

/// `cargo labs explain`: the table, as a learner or instructor would want it.
pub fn list(paths: &Paths) -> Result<(), String> {
    let table = table()?;
    for entry in &table.entries {
        let mut what: Vec<String> = entry.codes.clone();
        what.extend(entry.messages.iter().map(|m| format!("\"{m}\"")));
        what.extend(entry.panics.iter().map(|m| format!("panic \"{m}\"")));
        what.extend(
            entry
                .patterns
                .iter()
                .map(|p| format!("timeline pattern {p}")),
        );
        let labs = if entry.labs.is_empty() {
            String::new()
        } else {
            format!(" (lab {})", entry.labs.join(", "))
        };
        println!("{}{labs}: {}", entry.name, what.join(", "));
        for target in &entry.see {
            println!("  {}", describe(&paths.root, target));
        }
        if let Some(faq) = &entry.faq {
            println!("  FAQ: {faq}");
        }
    }
    Ok(())
}

/// `cargo labs explain --check`: the table and the FAQ page agree, and every place the
/// table names exists. Returns the problems found.
pub fn check(paths: &Paths) -> Result<Vec<String>, String> {
    check_table(&paths.root.join("src"), &table()?)
}

fn check_table(src: &Path, table: &Table) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let faq_text = fs::read_to_string(src.join(FAQ))
        .map_err(|e| format!("{}: {e}", src.join(FAQ).display()))?;
    let faq_entries = faq_sections(&faq_text);
    for entry in &table.entries {
        let name = &entry.name;
        if entry.codes.is_empty()
            && entry.messages.is_empty()
            && entry.panics.is_empty()
            && entry.patterns.is_empty()
        {
            problems.push(format!(
                "`{name}` matches nothing (codes, messages, panics, patterns)"
            ));
        }
        if entry.see.is_empty() {
            problems.push(format!("`{name}` names no page (`see`)"));
        }
        for target in &entry.see {
            let (page, anchor) = target.split_once('#').unwrap_or((target, ""));
            match read_page(src, page) {
                None => problems.push(format!("`{name}`: no page src/{page}")),
                Some(p) if !anchor.is_empty() && !p.sections.iter().any(|(_, id)| id == anchor) => {
                    problems.push(format!("`{name}`: src/{page} has no section #{anchor}"))
                }
                Some(_) => {}
            }
        }
        match (&entry.faq, entry.labs.is_empty()) {
            (None, true) => problems.push(format!(
                "`{name}` applies to every lab, so it needs its FAQ entry (`faq`)"
            )),
            (None, false) => {}
            (Some(faq), _) => match faq_entries.iter().find(|(h, _)| h == faq) {
                None => problems.push(format!("`{name}`: src/{FAQ} has no heading \"## {faq}\"")),
                Some((_, body)) => {
                    let first = entry.see.first().map(|t| t.split('#').next().unwrap_or(t));
                    if let Some(page) = first
                        && !body.contains(&format!("../{page}"))
                    {
                        problems.push(format!(
                            "src/{FAQ}, \"{faq}\": links nowhere to ../{page}, where the runner sends learners"
                        ));
                    }
                }
            },
        }
    }
    for (heading, _) in &faq_entries {
        let named = table
            .entries
            .iter()
            .any(|e| e.faq.as_ref() == Some(heading))
            || table.faq_other.contains(heading);
        if !named {
            problems.push(format!(
                "src/{FAQ}, \"{heading}\": not in labs/runner/explain.toml (an entry's `faq`, or `faq-other` if it is about no error or panic)"
            ));
        }
    }
    for other in &table.faq_other {
        if !faq_entries.iter().any(|(h, _)| h == other) {
            problems.push(format!(
                "faq-other names \"{other}\", which is not a heading of src/{FAQ}"
            ));
        }
    }
    Ok(problems)
}

/// The FAQ's "## " entries: heading, and the text up to the next one.
fn faq_sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            out.push((h.trim().to_owned(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_reads() {
        let t = table().unwrap();
        assert!(
            t.entries
                .iter()
                .any(|e| e.codes.contains(&"E0373".to_owned()))
        );
    }

    #[test]
    fn ids_follow_mdbook() {
        assert_eq!(
            heading_id("Why `spawn` needs `'static`"),
            "why-spawn-needs-static"
        );
        assert_eq!(
            heading_id("\"future cannot be sent between threads safely\""),
            "future-cannot-be-sent-between-threads-safely"
        );
        assert_eq!(
            heading_id("`select!` in a loop loses data"),
            "select-in-a-loop-loses-data"
        );
    }

    #[test]
    fn the_check_finds_drift() {
        let dir = std::env::temp_dir().join(format!("labs-explain-{}", std::process::id()));
        fs::create_dir_all(dir.join("appendix")).unwrap();
        fs::create_dir_all(dir.join("part2")).unwrap();
        fs::write(
            dir.join("part2/06-static.md"),
            "# Why spawn needs 'static\n\n## What the compiler says\n\n```rust\n## not a heading\n```\n",
        )
        .unwrap();
        fs::write(
            dir.join(FAQ),
            "# FAQ\n\n## E0373\n\nSee [x](../part2/06-static.md).\n\n## Unlisted\n\nText.\n",
        )
        .unwrap();
        let table = parse(
            "faq-other = [\"Gone\"]\n\
             [[entry]]\nname = \"a\"\ncodes = [\"E0373\"]\nfaq = \"E0373\"\n\
             see = [\"part2/06-static.md#what-the-compiler-says\"]\n\
             [[entry]]\nname = \"b\"\npanics = [\"x\"]\nfaq = \"Missing\"\n\
             see = [\"part2/06-static.md#not-a-heading\", \"part9/none.md\"]\n",
        )
        .unwrap();
        let problems = check_table(&dir, &table).unwrap();
        let _ = fs::remove_dir_all(&dir);
        let expected = [
            "`b`: src/part2/06-static.md has no section #not-a-heading",
            "`b`: no page src/part9/none.md",
            "`b`: src/appendix/faq.md has no heading \"## Missing\"",
            "src/appendix/faq.md, \"Unlisted\": not in labs/runner/explain.toml (an entry's `faq`, or `faq-other` if it is about no error or panic)",
            "faq-other names \"Gone\", which is not a heading of src/appendix/faq.md",
        ];
        assert_eq!(problems, expected);
    }
}
