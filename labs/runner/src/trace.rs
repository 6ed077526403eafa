//! Timelines: what the executor saw while a test ran. A lab's tests record them with
//! lab-support's `timeline` (labs 01-04 and 13 do, any lab's may): the runner sets
//! `LABS_TRACE_DIR` for every test binary it runs, and each recorded test writes its
//! timeline there as it ends (target/labs-runner/timelines/<package>/<binary>/<test>.timeline).
//!
//! - `check` and `watch` print the end of a failing test's timeline after its failure,
//!   and name the known mistakes the recorder saw, each with the page that explains it
//!   (labs/runner/explain.toml's `patterns`);
//! - `cargo labs trace NN [TEST]` runs lab NN's tests and prints a test's whole
//!   timeline, red or green; `--variant solution` (or `wrong/NAME`, `alt/NAME`) traces a
//!   solution or one of its other answers instead, for instructors and for
//!   scripts/timelines, which draws the book's diagrams from `--raw` output. Its
//!   timelines go under target/labs-runner/traced/ instead, so a trace never touches the
//!   files `check` or `verify` are reading.
//!
//! The file format is lab-support's (labs/support/src/timeline.rs): tab-separated lines.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::explain;
use crate::labs::{Lab, Paths};
use crate::outcome::{self, Evaluation, Outcome};
use crate::style;

/// The variable lab-support reads.
pub const DIR_VAR: &str = "LABS_TRACE_DIR";

/// Events `check` shows of a failing test's timeline, from its end.
const SHOWN: usize = 16;
/// Or from a little before the first mistake named, if that is at most this far back.
const SHOWN_MAX: usize = 40;

/// Where a package's timelines go: target/labs-runner/timelines/<package>/.
pub fn dir(runner_dir: &Path, package: &str) -> PathBuf {
    runner_dir.join("timelines").join(package)
}

/// The folder for one test binary's timelines ("tests/countdown.rs" -> "tests_countdown.rs").
pub fn binary_dir(runner_dir: &Path, package: &str, shown: &str) -> PathBuf {
    let name: String = shown
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir(runner_dir, package).join(name)
}

#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub test: String,
    /// "passed" or "failed".
    pub outcome: String,
    /// Events recorded in all, and the ones in between that were not kept.
    pub total: usize,
    pub cut: Option<(usize, usize)>,
    pub patterns: Vec<Hit>,
    pub events: Vec<Event>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// "lost-wake", "busy-loop", …: `patterns` in explain.toml.
    pub id: String,
    /// The event it was seen at.
    pub seq: usize,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub seq: usize,
    /// Virtual milliseconds since the first event, when the test runs in virtual time.
    pub at: Option<u64>,
    pub thread: String,
    pub depth: usize,
    pub kind: String,
    pub by: String,
    pub future: String,
    pub waker: String,
    pub detail: String,
}

/// Reads a timeline file; a line it does not know is a clear error, not a guess.
pub fn parse(text: &str) -> Result<Timeline, String> {
    let mut t = Timeline {
        test: String::new(),
        outcome: String::new(),
        total: 0,
        cut: None,
        patterns: Vec::new(),
        events: Vec::new(),
    };
    let number = |s: &str, what: &str| {
        s.parse::<usize>()
            .map_err(|_| format!("a timeline's {what} is not a number: {s:?}"))
    };
    let mut version = None;
    for (n, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["timeline", v] => version = Some(*v),
            ["test", name] => t.test = (*name).to_owned(),
            ["outcome", o] => t.outcome = (*o).to_owned(),
            ["events", total] => t.total = number(total, "event count")?,
            ["cut", from, to] => t.cut = Some((number(from, "cut")?, number(to, "cut")?)),
            ["pattern", id, seq, detail] => t.patterns.push(Hit {
                id: (*id).to_owned(),
                seq: number(seq, "pattern's event")?,
                detail: (*detail).to_owned(),
            }),
            [
                "event",
                seq,
                at,
                thread,
                depth,
                kind,
                by,
                future,
                waker,
                detail,
            ] => t.events.push(Event {
                seq: number(seq, "event number")?,
                at: if *at == "-" {
                    None
                } else {
                    Some(number(at, "time")? as u64)
                },
                thread: (*thread).to_owned(),
                depth: number(depth, "depth")?,
                kind: (*kind).to_owned(),
                by: (*by).to_owned(),
                future: (*future).to_owned(),
                waker: (*waker).to_owned(),
                detail: (*detail).to_owned(),
            }),
            [""] => {}
            _ => return Err(format!("line {} of a timeline is not one: {line:?}", n + 1)),
        }
    }
    match version {
        Some("1") => Ok(t),
        Some(v) => Err(format!(
            "a timeline of version {v}: this runner reads version 1 (is lab-support newer than the runner?)"
        )),
        None => Err("not a timeline (no `timeline` line)".to_owned()),
    }
}

/// Every timeline under `dir` (each test binary's folder), sorted by test name.
pub fn read_all(dir: &Path) -> Vec<Timeline> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "timeline")
                && let Ok(text) = fs::read_to_string(&path)
                && let Ok(timeline) = parse(&text)
            {
                found.push(timeline);
            }
        }
    }
    found.sort_by(|a, b| a.test.cmp(&b.test));
    found
}

/// One event, in words: "the test polls Countdown with waker 1".
pub fn sentence(e: &Event) -> String {
    let text = match e.kind.as_str() {
        "poll" => format!("{} polls {} with {}", e.by, e.future, e.waker),
        "pending" => {
            let how = match e.detail.as_str() {
                "woke" => format!(", having woken {}", e.waker),
                "kept" => format!(", keeping a clone of {}", e.waker),
                "woke,kept" => format!(", having woken {} and keeping a clone", e.waker),
                "none" => format!(", having neither woken {} nor kept it", e.waker),
                _ => String::new(),
            };
            format!("{} returns Pending{how}", e.future)
        }
        "ready" => format!("{} returns Ready", e.future),
        "panicked" => format!("{} panics", e.future),
        "wake" | "wake-by-ref" => format!("{} wakes {}", e.by, e.waker),
        "clone" => format!("{} clones {}", e.by, e.waker),
        "drop" => format!("{} drops {}", e.by, e.waker),
        "dropped" => format!("{} is dropped before it finished", e.future),
        "note" if e.future != "-" => format!("{} {}", e.future, e.detail),
        "note" => format!("{}: {}", e.by, e.detail),
        other => format!("{other} {} {} {}", e.by, e.future, e.waker),
    };
    if e.thread != "test thread" && e.by != e.thread {
        format!("{text} (on {})", e.thread)
    } else {
        text
    }
}

/// Prints `events` (from one timeline), one a line: numbered and indented by how deep
/// in other polls each happened, or in plain mode one sentence each. A change of virtual
/// time gets a line of its own; so does a gap in the numbering (events not kept).
fn print_events(events: &[Event]) {
    let plain = style::plain();
    let mut last_at = None;
    let mut last_seq: Option<usize> = None;
    for e in events {
        if let Some(prev) = last_seq
            && e.seq > prev + 1
        {
            let gap = e.seq - prev - 1;
            let text = format!(
                "{} not recorded (the recorder keeps the first and the last ones)",
                outcome::plural(gap, "event", "events")
            );
            if plain {
                println!("{text}.");
            } else {
                println!("  {}", style::dim(&format!("… {text} …")));
            }
        }
        last_seq = Some(e.seq);
        if e.at.is_some() && e.at != last_at {
            let at = e.at.unwrap_or_default();
            if plain {
                println!("At {at} ms:");
            } else {
                println!("  {}", style::dim(&format!("at {at} ms")));
            }
            last_at = e.at;
        }
        let text = sentence(e);
        if plain {
            println!("Event {}: {text}.", e.seq + 1);
            continue;
        }
        let painted = match e.kind.as_str() {
            "ready" => style::green(&text),
            "panicked" => style::red(&text),
            "pending" if e.detail == "none" => style::yellow(&text),
            _ => text,
        };
        println!(
            "  {:>5}  {}{painted}",
            e.seq + 1,
            "  ".repeat(e.depth.min(12))
        );
    }
}

/// The named mistakes of a timeline, each with where the book explains it.
fn print_patterns(paths: &Paths, t: &Timeline) {
    let table = explain::table().ok();
    let plain = style::plain();
    for hit in &t.patterns {
        let entry = table
            .as_ref()
            .and_then(|t| t.entries.iter().find(|e| e.patterns.contains(&hit.id)));
        let name = entry.map_or(hit.id.as_str(), |e| e.name.as_str());
        let places = entry.map(|e| explain::places(paths, e)).unwrap_or_default();
        let at = format!("event {}", hit.seq + 1);
        if plain {
            let book = if places.is_empty() {
                String::new()
            } else {
                format!(" The book explains this: {}.", places.join("; "))
            };
            println!("In {}: {name} ({}, {at}).{book}", t.test, hit.detail);
            continue;
        }
        println!("  {} {}", style::red("Seen:"), style::bold(name));
        println!("    {} ({at})", hit.detail);
        for place in places {
            println!("    {}", style::dim(&place));
        }
    }
}

/// The part of a timeline `check` shows: its end, or from just before the first mistake
/// named when that is not far back.
fn window(t: &Timeline) -> &[Event] {
    let n = t.events.len();
    let mut from = n.saturating_sub(SHOWN);
    if let Some(first) = t.patterns.iter().map(|h| h.seq).min()
        && let Some(at) = t.events.iter().position(|e| e.seq >= first)
    {
        let start = at.saturating_sub(2);
        if n - start <= SHOWN_MAX {
            from = from.min(start);
        }
    }
    &t.events[from..]
}

/// After a failing run: the end of a failing test's timeline (one with a mistake named,
/// if any), and every mistake named in the failing tests' timelines.
pub fn print_failing(paths: &Paths, lab: &Lab, evaluation: &Evaluation) {
    let failed = match &evaluation.outcome {
        Outcome::Failing { failed, .. } | Outcome::Hung { failed, .. } => failed,
        _ => return,
    };
    let all = read_all(&dir(&paths.runner_dir(), &lab.package));
    let mut failing: Vec<&Timeline> = all
        .iter()
        .filter(|t| failed.contains(&t.test) && !t.events.is_empty())
        .collect();
    if failing.is_empty() {
        return;
    }
    // The first with a mistake named, or else the first.
    failing.sort_by_key(|t| t.patterns.is_empty());
    let shown = failing[0];
    let events = window(shown);
    let command = format!("cargo labs trace {} {}", lab.number, shown.test);
    let what = if events.len() == shown.events.len() && shown.cut.is_none() {
        outcome::plural(shown.total, "event", "events")
    } else {
        format!(
            "the last {} of {} events; {command} shows them all",
            events.len(),
            shown.total
        )
    };
    if style::plain() {
        println!("Timeline of {} ({what}):", shown.test);
    } else {
        println!(
            "\n{} {} ({what}):",
            style::bold("What the executor saw in"),
            shown.test
        );
    }
    print_events(events);
    for t in &failing {
        print_patterns(paths, t);
    }
    let others: Vec<&str> = failing[1..].iter().map(|t| t.test.as_str()).collect();
    if !others.is_empty() {
        let text = format!(
            "The other failing tests' timelines: cargo labs trace {} TEST ({})",
            lab.number,
            others.join(", ")
        );
        if style::plain() {
            println!("{text}.");
        } else {
            println!("  {}", style::dim(&text));
        }
    }
}

/// Which code `trace` runs: the learner's lab, or (for instructors and the book's
/// diagrams) its solution or another answer from solutions/NN-slug/.
pub enum Answer {
    Lab,
    Solution,
    /// "wrong" or "alt", and the file's name without `.rs`.
    Variant(String, String),
}

impl Answer {
    pub fn parse(text: Option<&str>) -> Result<Answer, String> {
        let Some(text) = text else {
            return Ok(Answer::Lab);
        };
        if text == "solution" {
            return Ok(Answer::Solution);
        }
        match text.trim_end_matches(".rs").split_once('/') {
            Some((folder @ ("wrong" | "alt"), name)) if !name.is_empty() => {
                Ok(Answer::Variant(folder.to_owned(), name.to_owned()))
            }
            _ => Err(format!(
                "--variant: expected `solution`, `wrong/NAME` or `alt/NAME`, got `{text}`"
            )),
        }
    }
}

/// `cargo labs trace NN [TEST]`: runs the lab's tests (those whose name contains TEST)
/// with timelines on, then prints TEST's whole timeline, or lists the tests and the
/// mistakes their timelines name. `raw`: print the timeline file as it is.
pub fn trace(
    paths: &Paths,
    options: &crate::Options,
    lab: &Lab,
    test: Option<&str>,
    answer: &Answer,
    raw: bool,
) -> Result<ExitCode, String> {
    let ran = run(paths, options, lab, test, answer)?;
    let all = read_all(&ran.dir);
    let exact = test.and_then(|name| all.iter().find(|t| t.test == name));
    let chosen = match (test, exact) {
        (_, Some(t)) => Some(t),
        (Some(_), None) if all.len() == 1 => all.first(),
        _ => None,
    };
    let Some(timeline) = chosen else {
        if all.is_empty() {
            let why = match test {
                Some(name) => format!(
                    "no test of lab {} whose name contains `{name}` recorded a timeline",
                    lab.number
                ),
                None => format!(
                    "no test of lab {} recorded a timeline (its tests record with lab-support's timeline::Recording; labs 01-04 and 13 do)",
                    lab.number
                ),
            };
            return Err(why);
        }
        list(lab, &all, test);
        return Ok(ExitCode::SUCCESS);
    };
    if raw {
        let file = find_file(&ran.dir, &timeline.test)
            .ok_or_else(|| format!("the timeline of {} went missing", timeline.test))?;
        print!("{}", fs::read_to_string(file).map_err(|e| e.to_string())?);
        return Ok(ExitCode::SUCCESS);
    }
    let whose = match answer {
        Answer::Lab => format!("lab {}", lab.number),
        Answer::Solution => format!("lab {}'s solution", lab.number),
        Answer::Variant(folder, name) => format!("solutions/{}/{folder}/{name}.rs", lab.slug),
    };
    let verdict = if timeline.outcome == "passed" {
        style::green("passed")
    } else {
        style::red("failed")
    };
    let events = outcome::plural(timeline.total, "event", "events");
    if style::plain() {
        println!(
            "Timeline of {} ({whose}, {}, {events}):",
            timeline.test, timeline.outcome
        );
    } else {
        println!(
            "{}\n",
            style::heading(&format!("Timeline of {} ({whose})", timeline.test))
        );
        println!("The test {verdict}; {events}:");
    }
    print_events(&timeline.events);
    if let Some(why) = outcome::failures(&ran.output)
        .into_iter()
        .find(|f| f.name == timeline.test)
    {
        if style::plain() {
            println!("{}", why.one_line());
        } else {
            println!("\n{}", style::red(&why.one_line()));
        }
    }
    if !timeline.patterns.is_empty() && !style::plain() {
        println!();
    }
    print_patterns(paths, timeline);
    Ok(ExitCode::SUCCESS)
}

fn list(lab: &Lab, all: &[Timeline], test: Option<&str>) {
    let plain = style::plain();
    if let Some(name) = test {
        println!("Several tests of lab {} match `{name}`:", lab.number);
    } else if !plain {
        println!(
            "{}",
            style::heading(&format!("Timelines of lab {}", lab.number))
        );
    }
    for t in all {
        let named: Vec<&str> = t.patterns.iter().map(|h| h.id.as_str()).collect();
        let named = if named.is_empty() {
            String::new()
        } else {
            format!("; names {}", named.join(", "))
        };
        let line = format!(
            "{}: {}, {}{named}",
            t.test,
            t.outcome,
            outcome::plural(t.total, "event", "events")
        );
        if plain {
            println!("{line}.");
        } else {
            println!("  {line}");
        }
    }
    let hint = format!(
        "One test's whole timeline: cargo labs trace {} TEST",
        lab.number
    );
    if plain {
        println!("{hint}.");
    } else {
        println!("\n{}", style::dim(&hint));
    }
}

fn find_file(dir: &Path, test: &str) -> Option<PathBuf> {
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if fs::read_to_string(&path)
                .ok()
                .and_then(|text| parse(&text).ok())
                .is_some_and(|t| t.test == test)
            {
                return Some(path);
            }
        }
    }
    None
}

/// What a traced run left: its timelines' folder and the tests' output.
struct Ran {
    dir: PathBuf,
    output: String,
}

/// Builds the chosen code's tests and runs those whose name contains `test`, with
/// timelines on.
fn run(
    paths: &Paths,
    options: &crate::Options,
    lab: &Lab,
    test: Option<&str>,
    answer: &Answer,
) -> Result<Ran, String> {
    // Its timelines go to a folder of their own: `cargo labs verify` (which scripts/test
    // runs beside scripts/timelines) writes and reads the same packages' timelines.
    let runner_dir = paths.runner_dir().join("traced");
    let solution_dir = paths.solutions.join(&lab.slug);
    let (workspace, package, target) = match answer {
        Answer::Lab => (paths.labs.clone(), lab.package.clone(), None),
        Answer::Solution => {
            let manifest = crate::labs::read_toml(&solution_dir.join("Cargo.toml"))?;
            let package = manifest["package"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            (paths.solutions.clone(), package, None)
        }
        Answer::Variant(folder, name) => {
            let file = solution_dir.join(folder).join(format!("{name}.rs"));
            if !file.is_file() {
                return Err(format!("no {}", file.display()));
            }
            let (dir, package) = crate::verify::variant_crate(paths, lab, &file, folder)?;
            (
                dir,
                package,
                Some(paths.target.join("labs-runner").join("trace-target")),
            )
        }
    };
    let mut build = outcome::cargo();
    build.current_dir(&workspace).args([
        "test",
        "--package",
        &package,
        "--no-run",
        "--message-format=json",
    ]);
    if let Some(target) = &target {
        build.arg("--target-dir").arg(target);
    }
    let built = build
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    let stdout = String::from_utf8_lossy(&built.stdout);
    if !built.status.success() {
        return Err(format!(
            "the tests of {package} do not compile: `cargo labs check {}` shows the errors",
            lab.number
        ));
    }
    let dir = dir(&runner_dir, &package);
    let _ = fs::remove_dir_all(&dir);
    let mut output = String::new();
    for binary in outcome::TestBinary::from_build(&stdout) {
        let filter: Vec<&str> = test.into_iter().collect();
        let mut cmd = binary.command(&filter);
        cmd.env(DIR_VAR, binary_dir(&runner_dir, &package, &binary.shown));
        let ran =
            outcome::run_limited(cmd, lab.time_limit(options.time_limit), Some(&binary.shown))?;
        output.push_str(&ran.stdout);
        output.push_str(&ran.stderr);
    }
    Ok(Ran { dir, output })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "timeline\t1\ntest\tt\noutcome\tfailed\nevents\t5\n\
        pattern\tlost-wake\t2\tCountdown returned Pending on its poll 1 without waking the waker or keeping a clone of it\n\
        event\t0\t-\ttest thread\t0\tpoll\tthe test\tCountdown\tthe waker\t-\n\
        event\t1\t-\ttest thread\t1\tclone\tCountdown\t-\tthe waker\t-\n\
        event\t2\t100\ttest thread\t0\tpending\tthe test\tCountdown\tthe waker\tnone\n\
        event\t4\t100\tthread 1\t0\twake\tthread 1\t-\tthe waker\t-\n";

    #[test]
    fn reads_a_timeline() {
        let t = parse(SAMPLE).unwrap();
        assert_eq!(
            (t.test.as_str(), t.outcome.as_str(), t.total),
            ("t", "failed", 5)
        );
        assert_eq!(t.patterns[0].id, "lost-wake");
        assert_eq!(t.events.len(), 4);
        assert_eq!(t.events[2].at, Some(100));
        assert!(parse("timeline\t2\n").unwrap_err().contains("version 2"));
        assert!(
            parse("timeline\t1\nevent\tx\n")
                .unwrap_err()
                .contains("line 2")
        );
        assert!(parse("hello\n").is_err());
    }

    #[test]
    fn says_each_event_in_words() {
        let t = parse(SAMPLE).unwrap();
        let words: Vec<String> = t.events.iter().map(sentence).collect();
        assert_eq!(
            words,
            [
                "the test polls Countdown with the waker",
                "Countdown clones the waker",
                "Countdown returns Pending, having neither woken the waker nor kept it",
                "thread 1 wakes the waker",
            ]
        );
    }

    #[test]
    fn shows_the_end_or_from_just_before_the_first_mistake() {
        let mut t = parse(SAMPLE).unwrap();
        let event = t.events[0].clone();
        t.events = (0..100)
            .map(|seq| Event {
                seq,
                ..event.clone()
            })
            .collect();
        t.patterns[0].seq = 10;
        assert_eq!(window(&t).len(), SHOWN, "a mistake far back: the end only");
        t.patterns[0].seq = 70;
        assert_eq!(
            window(&t)[0].seq,
            68,
            "a mistake near the end: from just before it"
        );
    }

    #[test]
    fn variants_are_named_by_folder() {
        assert!(matches!(Answer::parse(None), Ok(Answer::Lab)));
        assert!(matches!(
            Answer::parse(Some("solution")),
            Ok(Answer::Solution)
        ));
        assert!(
            matches!(Answer::parse(Some("wrong/no_wake.rs")), Ok(Answer::Variant(f, n)) if f == "wrong" && n == "no_wake")
        );
        assert!(Answer::parse(Some("elsewhere/x")).is_err());
    }
}
