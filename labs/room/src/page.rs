//! The room's page, rendered here (the browser's script only swaps in new boards): every
//! text that came from outside (names, test names, codes) goes through `escape`, and
//! the page's policy (Content-Security-Policy, in main.rs) runs no inline script, so a
//! name with HTML in it is shown as the text it is.

use std::fmt::Write;
use std::time::Duration;

use crate::state::{Counts, LabReport, Shown, State, View};

pub const SCRIPT: &str = include_str!("room.js");
pub const STYLE: &str = include_str!("room.css");

/// Text made safe for HTML, in element content and in quoted attributes alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// "just now", "4 min", "1 h 05 min".
pub fn duration(d: Duration) -> String {
    let minutes = d.as_secs() / 60;
    match minutes {
        0 => "just now".to_owned(),
        1..=59 => format!("{minutes} min"),
        _ => format!("{} h {:02} min", minutes / 60, minutes % 60),
    }
}

/// The whole page: the board as it is now, and what keeps it current.
pub fn page(board: &str, version: u64, day: &str, join: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The room: {day}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="room.css">
</head>
<body>
<header>
<h1>The room <span class="day">{day}</span></h1>
<p class="join">Join from <code>labs/</code>: <code>{join}</code></p>
</header>
<main id="board" data-version="{version}">
{board}
</main>
<footer>
<p>What travels: each attendee's runner sends only each lab's status, the names of failing
tests and the compiler's error codes. Never source code, never file paths.
<span id="live" class="live" role="status">live</span></p>
</footer>
<script src="room.js"></script>
</body>
</html>
"#,
        day = escape(day),
        join = escape(join),
    )
}

/// The board: what the room is hitting, then one row per attendee and one column per lab.
pub fn board(view: &View) -> String {
    let mut h = String::new();
    issues(&mut h, view);
    if view.rows.is_empty() {
        h.push_str(
            "<p class=\"empty\">No one has joined yet. Each attendee runs the command above once; \
             from then on their <code>cargo labs</code>, <code>check</code> and <code>watch</code> \
             report here.</p>\n",
        );
    }
    // Many labs (a full day): the compact layout, numbers only in the headings, ✓ alone.
    let class = if view.columns.len() > 6 {
        "grid wide"
    } else {
        "grid"
    };
    let _ = write!(
        h,
        "<table class=\"{class}\">\n<thead>\n<tr><th scope=\"col\" class=\"who\">"
    );
    let _ = write!(
        h,
        "{} {}",
        view.rows.len(),
        if view.rows.len() == 1 {
            "attendee"
        } else {
            "attendees"
        }
    );
    h.push_str("</th>");
    for lab in &view.columns {
        let _ = write!(
            h,
            "<th scope=\"col\" data-lab=\"{n}\" title=\"Lab {n}: {title}\"><a href=\"{href}\"><span class=\"num\"><span class=\"word\">Lab </span>{n}</span> <span class=\"title\">{title}</span></a></th>",
            n = escape(&lab.number),
            href = escape(&lab.href),
            title = escape(&lab.title)
        );
    }
    h.push_str("</tr>\n<tr class=\"counts\"><th scope=\"row\">done · working · not started</th>");
    for (lab, c) in view.columns.iter().zip(&view.counts) {
        counts(&mut h, &lab.number, c);
    }
    h.push_str("</tr>\n</thead>\n<tbody>\n");
    for row in &view.rows {
        let _ = write!(
            h,
            "<tr><th scope=\"row\" class=\"name\"><span class=\"who\">{}</span> <small class=\"seen\">{}</small></th>",
            escape(row.name),
            if row.seen.as_secs() < 60 {
                "just now".to_owned()
            } else {
                format!("{} ago", duration(row.seen))
            }
        );
        for (lab, shown) in view.columns.iter().zip(&row.cells) {
            cell(&mut h, &lab.number, shown);
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n");
    h
}

fn counts(h: &mut String, lab: &str, c: &Counts) {
    let _ = write!(
        h,
        "<td data-lab=\"{}\" data-done=\"{}\" data-working=\"{}\" data-not-started=\"{}\">\
         <span class=\"n-done\">{} ✓</span> · <span class=\"n-working\">{}</span> · <span class=\"n-none\">{}</span></td>",
        escape(lab),
        c.done,
        c.working,
        c.not_started,
        c.done,
        c.working,
        c.not_started
    );
}

fn cell(h: &mut String, lab: &str, shown: &Shown) {
    let lab = escape(lab);
    match shown {
        Shown::NotStarted => {
            let _ = write!(
                h,
                "<td class=\"cell none\" data-lab=\"{lab}\" data-state=\"not-started\"><span class=\"what\">·</span><span class=\"sr\"> not started</span></td>"
            );
        }
        Shown::Done => {
            let _ = write!(
                h,
                "<td class=\"cell done\" data-lab=\"{lab}\" data-state=\"done\"><span class=\"what\">✓<span class=\"word\"> done</span></span></td>"
            );
        }
        Shown::Working { report, since } => {
            let (what, more) = what(report);
            let more = if more > 0 {
                format!(" <small class=\"more\">+{more}</small>")
            } else {
                String::new()
            };
            let _ = write!(
                h,
                "<td class=\"cell {state}\" data-lab=\"{lab}\" data-state=\"{state}\" title=\"{all}\"><span class=\"what\">{what}</span>{more} <small class=\"since\">{since}</small></td>",
                state = report.state.name(),
                what = escape(&what),
                all = escape(&everything(report)),
                since = duration(*since),
            );
        }
    }
}

/// All a stuck cell knows, for its tooltip (the cell shows the first of it).
fn everything(r: &LabReport) -> String {
    [&r.tests, &r.codes, &r.lesson]
        .iter()
        .flat_map(|items| items.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A stuck cell's headline ("✗ the_answer", "E0373") and how many more items it has.
fn what(r: &LabReport) -> (String, usize) {
    let first_and_more = |items: &[String], none: &str| match items {
        [] => (none.to_owned(), 0),
        [one, rest @ ..] => (one.clone(), rest.len()),
    };
    match r.state {
        State::Done => ("✓ done".to_owned(), 0),
        State::Failing => {
            let (test, more) = first_and_more(&r.tests, "tests fail");
            (format!("✗ {test}"), more)
        }
        State::Compile => first_and_more(&r.codes, "does not compile"),
        State::Hung => {
            let (test, more) = first_and_more(&r.tests, "a test");
            (format!("⏱ {test} hangs"), more)
        }
        State::Lesson => match r.lesson.as_slice() {
            [] => ("tests pass, lesson not yet".to_owned(), 0),
            items => (format!("tests pass, keeps {}", items.join(", ")), 0),
        },
        State::Miri => ("tests pass, Miri not yet".to_owned(), 0),
    }
}

fn issues(h: &mut String, view: &View) {
    h.push_str("<section class=\"issues\"><h2>What the room is hitting now</h2>\n");
    if view.issues.is_empty() {
        h.push_str("<p class=\"quiet\">Nothing that two or more people share right now.</p>\n");
    } else {
        h.push_str("<ol>\n");
        for issue in &view.issues {
            let _ = writeln!(
                h,
                "<li><span class=\"people\">{n} {people}</span> <span class=\"what\">{what}</span> <a class=\"page\" href=\"{href}\">{page}</a></li>",
                n = issue.people,
                people = if issue.people == 1 {
                    "person"
                } else {
                    "people"
                },
                what = escape(&issue.what),
                href = escape(&issue.href),
                page = escape(&issue.page),
            );
        }
        h.push_str("</ol>\n");
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leaves_no_markup() {
        assert_eq!(
            escape(r#"<img src=x onerror="alert('1')">&amp;"#),
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;amp;"
        );
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(Duration::from_secs(59)), "just now");
        assert_eq!(duration(Duration::from_secs(60 * 12 + 5)), "12 min");
        assert_eq!(duration(Duration::from_secs(3600 + 5 * 60)), "1 h 05 min");
    }
}
