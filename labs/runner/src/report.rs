//! What `check`, `watch` and the board print about a lab: the compiler's and the tests'
//! own words, then one status line, then what to do next. In plain mode (`--plain`,
//! `NO_COLOR`) every finding is one line of its own, and nothing is aligned or drawn.

use crate::day::Day;
use crate::explain;
use crate::labs::{Lab, Paths, html};
use crate::outcome::{Diagnostic, Evaluation, Outcome, failures, plural};
use crate::style;

/// One line per lab: number, title, minutes, where it stands.
pub fn status_line(lab: &Lab, outcome: &Outcome) -> String {
    let status = outcome.summary();
    if style::plain() {
        let minutes = plural(lab.minutes as usize, "minute", "minutes");
        return format!("Lab {}, {}, {minutes}: {status}.", lab.number, lab.title);
    }
    let status = if outcome.is_done() {
        style::green(&status)
    } else {
        style::red(&status)
    };
    format!(
        "  {}  {:<34} {:>3} min  {status}",
        lab.number, lab.title, lab.minutes
    )
}

/// The next lab to work on, and how.
pub fn print_next(paths: &Paths, lab: &Lab) {
    // In the repository: the page's source, served by scripts/serve. In the offline kit,
    // which has no src/: the rendered page on disk.
    let chapter = if paths.root.join("src").join(&lab.page).is_file() {
        format!(
            "src/{}  ({} with scripts/serve)",
            lab.page,
            lab.url(&lab.page)
        )
    } else {
        let rendered = paths.root.join("book").join("html").join(html(&lab.page));
        if rendered.is_file() {
            rendered.display().to_string()
        } else {
            format!("src/{}", lab.page)
        }
    };
    if style::plain() {
        println!();
        style::say(&format!("Next: lab {}, {}.", lab.number, lab.title));
        style::say(&format!("Task: labs/{}/README.md", lab.slug));
        style::say(&format!("Chapter: {chapter}"));
        if let Some(online) = paths.book_url(&lab.page) {
            style::say(&format!("Online: {online}"));
        }
        style::say(&format!("Check: cargo labs check {}", lab.number));
        style::say(&format!("Stuck? cargo labs hint {}", lab.number));
        style::say("Or leave cargo labs watch running while you edit.");
        return;
    }
    println!(
        "\n{} lab {}: {}",
        style::bold("Next:"),
        lab.number,
        lab.title
    );
    println!("  task      labs/{}/README.md", lab.slug);
    println!("  chapter   {chapter}");
    if let Some(online) = paths.book_url(&lab.page) {
        println!("            {online}");
    }
    println!("  check     cargo labs check {}", lab.number);
    println!("  stuck?    cargo labs hint {}", lab.number);
    println!("  or leave  cargo labs watch   running while you edit");
}

/// A lab just turned green: its solution page, and the lab after it (the day's next:
/// `next`, from [`Day::next_after`]).
pub fn print_done(paths: &Paths, lab: &Lab, next: Option<&Lab>, day: &Day) {
    let page = lab.solution_page();
    let local = paths.root.join("src").join(&page);
    let rendered = paths
        .root
        .join("book")
        .join("html")
        .join(page.replace(".md", ".html"));
    let plain = style::plain();
    if plain {
        println!("\nDone: lab {} is green.", lab.number);
    } else {
        println!("\n{} Lab {} is green.", style::green("Done!"), lab.number);
    }
    let say = |label: &str, text: String| {
        if plain {
            style::say(&format!("{label}: {text}"));
        } else {
            println!("  {:<9} {text}", label.to_lowercase());
        }
    };
    if local.is_file() {
        say(
            "Solution",
            format!("src/{page}  ({} with scripts/serve)", lab.url(&page)),
        );
    }
    if rendered.is_file() {
        // The rendered book, where there is one (scripts/build-book, the offline kit).
        say("HTML", rendered.display().to_string());
    }
    if let Some(online) = paths.book_url(&page) {
        say(
            if local.is_file() {
                "Online"
            } else {
                "Solution"
            },
            online,
        );
    }
    match next {
        Some(n) => say(
            "Next",
            format!(
                "lab {}: {}  (cargo labs check {}; cargo labs for the board)",
                n.number, n.title, n.number
            ),
        ),
        None if day.is_every_lab() => say(
            "Next",
            "that was the last lab: run cargo labs for the board".into(),
        ),
        None => say(
            "Next",
            format!(
                "that was the last lab of the day ({}): run cargo labs for the board",
                day.list()
            ),
        ),
    }
}

/// What the compiler and the tests said: warnings first (they often point at the
/// mistake), then the errors or the test output.
pub fn print_details(evaluation: &Evaluation) {
    if style::plain() {
        return print_details_plain(evaluation);
    }
    match &evaluation.outcome {
        // rustc's text already has the warnings among the errors.
        Outcome::DoesNotCompile { rendered, .. } => print!("\n{rendered}"),
        Outcome::Failing { output, .. } | Outcome::Hung { output, .. } => {
            print_warnings(&evaluation.warnings);
            print!("\n{output}");
            print_why_failed(&evaluation.outcome);
        }
        Outcome::BreaksLesson { .. }
        | Outcome::MiriNotRun { .. }
        | Outcome::MiriFailed { .. }
        | Outcome::Done { .. } => print_warnings(&evaluation.warnings),
    }
}

/// After the tests' output, which can be long: one line per failing test, with the
/// message of the panic that failed it (the test's own, not a fake's on the way), so that
/// the reason is next to the status line.
fn print_why_failed(outcome: &Outcome) {
    let (Outcome::Failing { output, failed, .. } | Outcome::Hung { output, failed, .. }) = outcome
    else {
        return;
    };
    let crashed: &[(String, String)] = match outcome {
        Outcome::Failing { crashed, .. } => crashed,
        _ => &[],
    };
    let found = failures(output);
    let mut lines = Vec::new();
    for name in failed {
        if let Some((_, how)) = crashed.iter().find(|(t, _)| t == name) {
            lines.push(format!("{name}: crashed the test binary ({how})"));
        } else if let Some(f) = found.iter().find(|f| &f.name == name) {
            let at = f
                .place
                .as_ref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            lines.push(format!("{name}{at}: {}", f.message));
        }
    }
    if lines.is_empty() {
        return;
    }
    println!("\n{}", style::bold("Why:"));
    for line in lines {
        println!("  {}", style::red(&line));
    }
}

fn print_warnings(warnings: &[Diagnostic]) {
    if warnings.is_empty() {
        return;
    }
    println!();
    for w in warnings {
        print!("{}", w.rendered);
    }
}

/// One line per warning, error and failing test; under each warning and error, rustc's
/// own excerpt of the code with its `^^^` markers (its text has no colour to drop).
fn print_details_plain(evaluation: &Evaluation) {
    let mut found: Vec<(String, &Diagnostic)> = evaluation
        .warnings
        .iter()
        .map(|w| (with_label(w, "warning"), w))
        .collect();
    if let Outcome::DoesNotCompile { errors, .. } = &evaluation.outcome {
        found.extend(errors.iter().map(|e| (with_label(e, "error"), e)));
    }
    // The same error at the same place (rustc repeats some with other notes): once, with
    // the first one's excerpt.
    let mut seen: Vec<(String, &Diagnostic, usize)> = Vec::new();
    for (line, d) in found {
        match seen.iter_mut().find(|(l, _, _)| *l == line) {
            Some((_, _, n)) => *n += 1,
            None => seen.push((line, d, 1)),
        }
    }
    for (line, d, n) in seen {
        if n == 1 {
            style::say(&line);
        } else {
            style::say(&format!("{line} ({n} times)"));
        }
        // rustc's lines after its first (which the line above says again): the excerpt as
        // rustc laid it out (not wrapped: the markers line up with the code).
        // Its notes and help are prose, and wrapped like the rest.
        let excerpt: Vec<String> = d
            .rendered
            .lines()
            .skip(1)
            .map(|l| {
                let t = l.trim_start();
                if t.starts_with("= ") || t.starts_with("help:") || t.starts_with("note:") {
                    style::wrap(l, style::width())
                } else {
                    l.to_owned()
                }
            })
            .collect();
        let excerpt = excerpt.join("\n");
        let excerpt = excerpt.trim_end();
        if !excerpt.trim().is_empty() {
            println!("{excerpt}\n");
        }
    }
    match &evaluation.outcome {
        Outcome::DoesNotCompile { .. } => {}
        Outcome::Failing {
            output,
            failed,
            crashed,
            ..
        } => {
            let found = failures(output);
            for name in failed {
                if let Some((_, how)) = crashed.iter().find(|(t, _)| t == name) {
                    style::say(&format!("test {name} crashed the test binary ({how})."));
                    continue;
                }
                match found.iter().find(|f| &f.name == name) {
                    Some(f) => style::say(&f.one_line()),
                    None => style::say(&format!("test {name} failed.")),
                }
            }
        }
        Outcome::Hung { output, failed, .. } => {
            let found = failures(output);
            for name in failed {
                match found.iter().find(|f| &f.name == name) {
                    Some(f) => style::say(&f.one_line()),
                    None => style::say(&format!("test {name} failed.")),
                }
            }
        }
        Outcome::BreaksLesson { .. }
        | Outcome::MiriNotRun { .. }
        | Outcome::MiriFailed { .. }
        | Outcome::Done { .. } => {}
    }
}

/// "src/lib.rs:3:5: error[E0308]: mismatched types (expected `&B`, found `Arc<B>`)"
fn with_label(d: &Diagnostic, level: &str) -> String {
    let line = d.one_line(level);
    match d.labels.first() {
        Some(label) if !label.is_empty() && *label != d.message => format!("{line} ({label})"),
        _ => line,
    }
}

/// Where the learner's code still keeps what the lab forbids, and why that matters.
pub fn print_breaches(outcome: &Outcome) {
    let Outcome::BreaksLesson { breaches, .. } = outcome else {
        return;
    };
    if style::plain() {
        for breach in breaches {
            style::say(&breach.long());
        }
        return;
    }
    println!(
        "\nEvery test passes, but the lab is not done while its code keeps what it teaches you to remove:"
    );
    for breach in breaches {
        println!("  {}", style::red(&breach.long()));
        if !breach.code.is_empty() {
            println!("      {}", style::dim(&breach.code));
        }
    }
}

/// Miri: not installed (how to install it), or what it found.
pub fn print_miri(outcome: &Outcome) {
    let plain = style::plain();
    match outcome {
        Outcome::MiriNotRun { toolchain, why, .. } => {
            let install = format!("rustup toolchain install {toolchain} --component miri,rust-src");
            let what = "This lab's code is unsafe, and its tests cannot see everything unsafe \
                        code can get wrong: it is done when its tests pass under Miri too.";
            if plain {
                style::say(&format!(
                    "Miri not run: {why}. {what} Install Miri once: {install}"
                ));
            } else {
                println!("\n{} {what}", style::red("Miri not run:"));
                if !why.is_empty() {
                    println!("{}", style::dim(&format!("({why})")));
                }
                println!("Install it once (a few minutes), then check again:\n    {install}");
            }
        }
        Outcome::MiriFailed { test, report, .. } => {
            let which = test
                .as_ref()
                .map(|t| format!(" in {t}"))
                .unwrap_or_default();
            if plain {
                style::say(&format!(
                    "Miri: every test passes, but under Miri{which}: {}",
                    report.lines().next().unwrap_or("")
                ));
                return;
            }
            println!(
                "\n{} every test passes, but Miri stops{which}:\n",
                style::red("Miri:")
            );
            println!("{report}");
        }
        _ => {}
    }
}

/// Why a test run was stopped, and what usually causes it (in this lab, if it says).
pub fn print_hang(lab: &Lab, outcome: &Outcome) {
    let Outcome::Hung {
        limit,
        binary,
        running,
        ..
    } = outcome
    else {
        return;
    };
    let which = match running.as_slice() {
        [] => String::new(),
        names => format!(" (still running: {})", names.join(", ")),
    };
    let cause = "The usual cause: a future that wakes itself and answers Pending again and \
                 again (or a loop that polls without waiting) keeps the executor busy, so \
                 tokio's paused clock never moves and no `timeout` in the test can fire.";
    let limit_note =
        "The limit: --time-limit SECS, LABS_TIME_LIMIT, or time-limit in the lab's Cargo.toml.";
    let in_this_lab = lab
        .hang_hint
        .as_ref()
        .map(|h| format!(" In this lab: {h}"))
        .unwrap_or_default();
    if style::plain() {
        style::say(&format!(
            "Stopped: {binary} was still running after {} s{which}. {cause}{in_this_lab} {limit_note}",
            limit.as_secs()
        ));
        return;
    }
    println!(
        "\n{} {binary} was still running after {} s and was stopped{which}.",
        style::red("Stopped:"),
        limit.as_secs()
    );
    println!("{cause}{in_this_lab}");
    println!("{}", style::dim(&format!("({limit_note})")));
}

/// Everything `check` and `watch` say about one evaluation of a lab.
pub fn print_lab(paths: &Paths, lab: &Lab, evaluation: &Evaluation) {
    print_details(evaluation);
    crate::trace::print_failing(paths, lab, evaluation);
    let outcome = &evaluation.outcome;
    if style::plain() {
        style::say(&status_line(lab, outcome));
    } else {
        println!("\n{}", status_line(lab, outcome));
    }
    print_breaches(outcome);
    print_hang(lab, outcome);
    print_miri(outcome);
    explain::print(paths, lab, evaluation);
}
