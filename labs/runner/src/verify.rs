//! `cargo labs verify`: the maintainers' proof of the lab contract, run by scripts/test.
//! For every lab: the starter fails exactly as its Cargo.toml says; the compiler's
//! text for a starter that does not compile matches its snapshot (the book includes
//! it); the solution passes every test; every wrong answer in solutions/NN-slug/wrong
//! fails exactly as its header says; the solution keeps the lab's lesson (its `forbid`
//! list) and has no `'static` it did not declare.
//!
//! A wrong answer is a file that replaces one anchored region of the solution's
//! src/lib.rs (`//! replaces: NAME`, default `solution`). Its header names how it must
//! fail: `//! expect-fail: test_a, test_b` or `//! expect-error: E0308`, or, for an
//! answer that passes every test but keeps what the lab forbids, `//! expect-lesson: Arc`
//! (exactly the items it breaks). A fault that shows through a race the answer loses
//! only most of the time goes in `//! may-also-fail: test_c` (those may fail or not).
//! `//! expect-pattern: lost-wake` (for a lab whose tests record timelines) says which
//! mistakes the timeline recorder must name in the failing tests' timelines, and verify
//! proves the solution's timelines name none.
//! verify builds
//! it as a throwaway crate in target/labs-runner/wrong/, with the solution's tests and
//! the solutions workspace's pinned dependencies. Files in solutions/NN-slug/alt/ work
//! the same way but are other correct answers (a book page may show them): their header
//! says `//! expect-pass`, and verify proves them green.

use std::fs;
use std::path::{Path, PathBuf};

use crate::labs::{Expect, Lab, Paths, read_toml};
use crate::lesson::{self, Forbid};
use crate::outcome::{Crate, Diagnostic, Outcome, error_kinds, plural};
use crate::{Options, style};

pub struct Row {
    pub ok: bool,
    pub what: String,
    pub detail: String,
    /// How long the check took (its job's time, for a job that makes several rows).
    pub seconds: f64,
}

/// One unit of verify's work. Jobs run several at a time: builds queue on cargo's lock on
/// the target folder, so while one job compiles, others run their tests (which mostly
/// wait: on sockets, timers, watchdogs). Rows come out in the order of the jobs.
enum Job<'a> {
    /// The starter as the learner gets it: red for the stated reason; its snapshot.
    Starter(&'a Lab),
    /// The solution: green, keeps the lesson, needs no crate beyond the starter's.
    Solution(&'a Lab),
    /// A file of solutions/NN-slug/wrong/ (red) or alt/ (green).
    Variant(&'a Lab, &'static str, PathBuf),
}

impl Job<'_> {
    /// The job's name in target/labs-runner/verify-seconds.tsv.
    fn key(&self) -> String {
        match self {
            Job::Starter(lab) => format!("{} starter", lab.slug),
            Job::Solution(lab) => format!("{} solution", lab.slug),
            Job::Variant(lab, folder, file) => format!(
                "{} {folder}/{}",
                lab.slug,
                file.file_name().unwrap_or_default().to_string_lossy()
            ),
        }
    }
}

/// How many target folders verify builds in: one build at a time can run in each (cargo
/// locks a target folder while it builds), and a build of one small crate keeps about one
/// core busy. So one lane per core, up to 4 (`LABS_VERIFY_LANES` overrides). Lane 0 is the
/// workspace's own target/, so the steps of scripts/test that run beside verify find the
/// solutions and their dependencies built (measured: with a folder of its own, lane 0
/// saved them the waits for its lock, and cost as many CPU-seconds in builds done twice);
/// each other lane builds the dependencies once more.
pub fn lanes() -> usize {
    env_number("LABS_VERIFY_LANES").unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 4)
    })
}

/// How many jobs run at once: `--jobs N`, or `LABS_VERIFY_JOBS`, or four per lane, up to 8:
/// while one builds, the others run their tests, which mostly wait (on sockets, timers,
/// the watchdogs that catch a wrong answer's hang).
pub fn default_jobs() -> usize {
    env_number("LABS_VERIFY_JOBS").unwrap_or((4 * lanes()).min(8))
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n| n > 0)
}

/// The target folder of a lane: the workspace's own for lane 0, `target/verify-lane-N/` for
/// the others.
fn lane_target(paths: &Paths, lane: usize) -> PathBuf {
    if lane == 0 {
        paths.target.clone()
    } else {
        paths.target.join(format!("verify-lane-{lane}"))
    }
}

pub fn verify(
    paths: &Paths,
    options: &Options,
    labs: &[&Lab],
    bless: bool,
    jobs: usize,
) -> Result<Vec<Row>, String> {
    // Each job has a lane of its own, the same from run to run and whichever labs are
    // verified, so a wrong answer is rebuilt only when it changed, also by `verify NN`
    // after a full run: a lab's starter and solution in lane 0 (the workspace's target/,
    // where the other steps of scripts/test find them), its k-th variant in lane k + 1,
    // round the lanes. Each lane's workers take its jobs in order.
    let lanes = lanes().min(jobs).max(1);
    let mut plan = Vec::new();
    let mut queues: Vec<Vec<usize>> = vec![Vec::new(); lanes];
    for lab in labs {
        for job in [Job::Starter(lab), Job::Solution(lab)] {
            queues[0].push(plan.len());
            plan.push(job);
        }
        let solution_dir = paths.solutions.join(&lab.slug);
        let mut k = 0;
        for folder in ["wrong", "alt"] {
            for file in variants(&solution_dir.join(folder))? {
                k += 1;
                queues[k % lanes].push(plan.len());
                plan.push(Job::Variant(lab, folder, file));
            }
        }
    }
    // Within a lane, the jobs that took longest last time go first (those whose tests
    // mostly wait, such as a wrong answer that stalls every test until its limit), so the
    // quick ones fill the time around them instead of one long job ending the run. A job
    // with no time on record (a fresh target/, a new answer) keeps its place, ahead of them.
    let last = last_seconds(&seconds_file(paths));
    for queue in &mut queues {
        longest_first(queue, |k| last.get(&plan[k].key()).copied());
    }
    let next: Vec<std::sync::atomic::AtomicUsize> = (0..lanes)
        .map(|_| std::sync::atomic::AtomicUsize::new(0))
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut rows = Vec::new();
    let mut took = Vec::new();
    let result = std::thread::scope(|scope| -> Result<(), String> {
        for worker in 0..jobs.clamp(1, plan.len().max(1)) {
            let tx = tx.clone();
            let lane = worker % lanes;
            let (plan, queue, next) = (&plan, &queues[lane], &next[lane]);
            let target = lane_target(paths, lane);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&k) = queue.get(i) else { break };
                    let job = &plan[k];
                    let started = std::time::Instant::now();
                    let result = run_job(paths, options, job, bless, &target);
                    let seconds = started.elapsed().as_secs_f64();
                    if tx.send((k, result, seconds)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Print each job's rows as soon as every job before it has printed.
        let mut done = std::collections::BTreeMap::new();
        let mut printed = 0;
        for (k, result, seconds) in rx {
            took.push((plan[k].key(), seconds));
            done.insert(k, (result, seconds));
            while let Some((result, seconds)) = done.remove(&printed) {
                for mut row in result? {
                    row.seconds = seconds;
                    println!(
                        "{} {:<40} {}",
                        if row.ok {
                            style::green("ok  ")
                        } else {
                            style::red("FAIL")
                        },
                        row.what,
                        row.detail
                    );
                    rows.push(row);
                }
                printed += 1;
            }
        }
        Ok(())
    });
    save_seconds(&seconds_file(paths), last, took);
    result?;
    Ok(rows)
}

/// Where verify keeps how long each job took last time: `SECONDS<TAB>JOB` lines.
fn seconds_file(paths: &Paths) -> PathBuf {
    paths.runner_dir().join("verify-seconds.tsv")
}

/// Orders a lane's jobs by the seconds they took last time, longest first; a job with no
/// time on record goes ahead of them, and jobs with the same time keep their order.
fn longest_first(queue: &mut [usize], last: impl Fn(usize) -> Option<f64>) {
    let cost = |k: usize| last(k).unwrap_or(f64::INFINITY);
    queue.sort_by(|&a, &b| cost(b).total_cmp(&cost(a)));
}

/// The seconds each job took the last time it ran (none when the file is missing; a line
/// that does not read is skipped: the file only orders the work).
fn last_seconds(file: &Path) -> std::collections::HashMap<String, f64> {
    let text = fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (seconds, key) = line.split_once('\t')?;
            Some((
                key.to_owned(),
                seconds.parse().ok().filter(|s: &f64| s.is_finite())?,
            ))
        })
        .collect()
}

/// Records this run's times beside those of the jobs it did not run (`verify 19` keeps the
/// other labs' times). Best effort: without the file, verify only loses its ordering.
fn save_seconds(
    file: &Path,
    mut seconds: std::collections::HashMap<String, f64>,
    took: Vec<(String, f64)>,
) {
    seconds.extend(took);
    let mut lines: Vec<String> = seconds
        .iter()
        .map(|(key, s)| format!("{s:.1}\t{key}\n"))
        .collect();
    lines.sort();
    if let Some(dir) = file.parent() {
        let _ = fs::create_dir_all(dir);
    }
    let _ = fs::write(file, lines.concat());
}

/// "19-tpc-server wrong/x.rs is red 41 s, …": the five slowest checks, so that a change
/// that slows verify down is seen the day it lands.
pub fn slowest(rows: &[Row]) -> String {
    let mut by_time: Vec<&Row> = Vec::new();
    for row in rows {
        // A job's several rows share its time: count it once.
        if !by_time.iter().any(|r| {
            r.seconds == row.seconds && r.what.split(' ').next() == row.what.split(' ').next()
        }) {
            by_time.push(row);
        }
    }
    by_time.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    by_time
        .iter()
        .take(5)
        .map(|r| format!("{} {:.0} s", r.what, r.seconds))
        .collect::<Vec<_>>()
        .join("; ")
}

fn row(lab: &Lab, what: &str, result: Result<String, String>) -> Row {
    let (ok, detail) = match result {
        Ok(detail) => (true, detail),
        Err(detail) => (false, detail),
    };
    Row {
        ok,
        what: format!("{} {what}", lab.slug),
        detail,
        seconds: 0.0,
    }
}

/// Runs one job; a wrong or alternative answer is built in `target` (its lane's folder).
fn run_job(
    paths: &Paths,
    options: &Options,
    job: &Job,
    bless: bool,
    target: &Path,
) -> Result<Vec<Row>, String> {
    let runner_dir = paths.runner_dir();
    let mut rows = Vec::new();
    match job {
        Job::Starter(lab) => {
            let solution_dir = paths.solutions.join(&lab.slug);
            let starter = Crate {
                workspace: &paths.labs,
                package: &lab.package,
                // Lane 0: the workspace's own target/.
                target_dir: None,
                crate_dir: &lab.dir,
                forbid: &lab.forbid,
                allowed_dependencies: lab.allowed_dependencies.as_deref(),
                runner_dir: &runner_dir,
                time_limit: lab.time_limit(options.time_limit),
                miri: lab.miri.as_ref(),
                given: None,
                fixed_api: false,
            }
            .evaluate()?
            .outcome;
            rows.push(row(lab, "starter is red", expect(&lab.starter, &starter)));
            if let Outcome::DoesNotCompile { rendered, .. } = &starter {
                rows.push(row(
                    lab,
                    "starter error snapshot",
                    snapshot(&solution_dir.join("starter.stderr"), rendered, bless),
                ));
            }
        }
        Job::Solution(lab) => {
            let solution_dir = paths.solutions.join(&lab.slug);
            if !solution_dir.is_dir() {
                rows.push(row(
                    lab,
                    "solution exists",
                    Err(format!("no {}", solution_dir.display())),
                ));
                return Ok(rows);
            }
            let manifest = read_toml(&solution_dir.join("Cargo.toml"))?;
            let package = manifest["package"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let solved = Crate {
                workspace: &paths.solutions,
                package: &package,
                // Lane 0: the workspace's own target/.
                target_dir: None,
                crate_dir: &solution_dir,
                forbid: &lab.forbid,
                allowed_dependencies: None,
                runner_dir: &runner_dir,
                time_limit: lab.time_limit(options.time_limit),
                miri: lab.miri.as_ref(),
                given: Some(&crate::reset::sources(&lab.dir.join("src"))?),
                fixed_api: lab.fixed_api,
            }
            .evaluate()?
            .outcome;
            rows.push(row(
                lab,
                "solution is green",
                match &solved {
                    Outcome::Done { .. } => Ok(solved.summary()),
                    Outcome::BreaksLesson { total, .. } => {
                        Ok(plural(*total, "test passes", "tests pass"))
                    }
                    _ => Err(failure_text(&solved)),
                },
            ));
            // A learner's crate may name no dependency the solution does without (runner
            // `check` says so); the starter must not either, or a right answer looks wrong.
            let allowed = crate::labs::dependency_names(&manifest);
            rows.push(row(
                lab,
                "starter needs no crate the solution lacks",
                match crate::lesson::new_dependencies(&lab.dir, &allowed) {
                    Ok(extra) if extra.is_empty() => Ok(format!("[{}]", allowed.join(", "))),
                    Ok(extra) => Err(extra
                        .iter()
                        .map(|b| b.short())
                        .collect::<Vec<_>>()
                        .join("; ")),
                    Err(e) => Err(e),
                },
            ));
            if !lab.forbid.is_empty() {
                rows.push(row(
                    lab,
                    "solution keeps the lesson",
                    match &solved {
                        Outcome::BreaksLesson { .. } => Err(failure_text(&solved)),
                        _ => Ok(lesson_text(lab)),
                    },
                ));
            }
            rows.push(row(
                lab,
                "solution has no 'static",
                no_static(&solution_dir, &manifest),
            ));
            // A lab whose tests record timelines: no mistake is named in a right answer's.
            let timelines = crate::trace::read_all(&crate::trace::dir(&runner_dir, &package));
            if !timelines.is_empty() {
                rows.push(row(
                    lab,
                    "solution's timelines name no mistake",
                    no_patterns(&timelines),
                ));
            }
        }
        Job::Variant(lab, folder, file) => {
            let solution_dir = paths.solutions.join(&lab.slug);
            if !solution_dir.is_dir() {
                return Ok(rows);
            }
            let name = file
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let verdict = if *folder == "wrong" { "red" } else { "green" };
            let result = check_variant(paths, options, lab, (file, folder), target);
            rows.push(row(
                lab,
                &format!("{folder}/{name}.rs is {verdict}"),
                result,
            ));
        }
    }
    Ok(rows)
}

/// Does the outcome fail exactly as expected?
fn expect(expected: &Expect, got: &Outcome) -> Result<String, String> {
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    match (expected, got) {
        (Expect::Errors(want), Outcome::DoesNotCompile { errors, .. })
            if sorted(want) == kinds(errors) =>
        {
            Ok(got.summary())
        }
        (Expect::Fails(want), Outcome::Failing { failed, .. }) if sorted(want) == *failed => {
            Ok(format!("fails {}", failed.join(", ")))
        }
        (Expect::Pass, Outcome::Done { .. }) => Ok(got.summary()),
        (Expect::Miri(words), Outcome::MiriFailed { report, test, .. })
            if report.contains(words.as_str()) =>
        {
            Ok(format!(
                "tests pass; Miri{}: {}",
                test.as_ref()
                    .map(|t| format!(" in {t}"))
                    .unwrap_or_default(),
                report.lines().next().unwrap_or("")
            ))
        }
        (Expect::Miri(words), _) => Err(format!(
            "expected the tests to pass and Miri to report {words:?}, got: {}",
            failure_text(got)
        )),
        (Expect::Lesson(want), Outcome::BreaksLesson { breaches, .. }) => {
            let mut items: Vec<_> = breaches.iter().map(|b| b.item).collect();
            items.sort();
            items.dedup();
            let mut want = want.clone();
            want.sort();
            if items == want {
                let places: Vec<String> = breaches.iter().map(|b| b.short()).collect();
                Ok(format!("tests pass; {}", places.join("; ")))
            } else {
                Err(format!(
                    "expected the tests to pass and the lesson to break on exactly [{}], got: {}",
                    names(&want),
                    failure_text(got)
                ))
            }
        }
        (Expect::Lesson(want), _) => Err(format!(
            "expected the tests to pass and the lesson to break on exactly [{}], got: {}",
            names(want),
            failure_text(got)
        )),
        (Expect::Pass, _) => Err(format!(
            "expected every test to pass, got: {}",
            failure_text(got)
        )),
        (Expect::Errors(want), _) => Err(format!(
            "expected errors [{}], got: {}",
            want.join(", "),
            failure_text(got)
        )),
        (Expect::Fails(want), _) => Err(format!(
            "expected failing tests [{}], got: {}",
            want.join(", "),
            failure_text(got)
        )),
    }
}

fn failure_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::DoesNotCompile { errors, .. } => {
            let all: Vec<String> = kinds(errors).iter().map(|e| format!("`{e}`")).collect();
            format!("does not compile, errors {}", all.join(", "))
        }
        Outcome::Failing { failed, .. } => format!("{}: {}", outcome.summary(), failed.join(", ")),
        Outcome::Hung { binary, .. } => format!(
            "{} ({binary}; a wrong answer must fail, never hang: see lab-support's watchdog)",
            outcome.summary()
        ),
        Outcome::BreaksLesson { breaches, .. } => {
            let places: Vec<String> = breaches.iter().map(|b| b.short()).collect();
            format!("tests pass, but {}", places.join("; "))
        }
        Outcome::MiriFailed { report, .. } => format!(
            "{}: {}",
            outcome.summary(),
            report.lines().next().unwrap_or("")
        ),
        Outcome::MiriNotRun { why, .. } => format!("{} ({why})", outcome.summary()),
        other => other.summary(),
    }
}

/// The error codes, and the messages of errors without one, each once, sorted.
fn kinds(errors: &[Diagnostic]) -> Vec<String> {
    let (codes, uncoded) = error_kinds(errors);
    let mut all: Vec<String> = codes.into_keys().chain(uncoded.into_keys()).collect();
    all.sort();
    all
}

/// "no Arc, no 'static, nothing of the default set but unsafe (the lab is …)"
fn lesson_text(lab: &Lab) -> String {
    let own: Vec<String> = lab
        .forbid
        .iter()
        .filter(|f| !Forbid::DEFAULT.contains(f))
        .map(|f| format!("no {}", f.name()))
        .collect();
    let default = match lab.allowed.as_slice() {
        [] => "nothing of the default set".to_owned(),
        allowed => {
            let names: Vec<String> = allowed
                .iter()
                .map(|(f, why)| format!("{} ({why})", f.name()))
                .collect();
            format!("nothing of the default set but {}", names.join(", "))
        }
    };
    own.into_iter()
        .chain([default])
        .collect::<Vec<_>>()
        .join(", ")
}

fn names(items: &[Forbid]) -> String {
    let names: Vec<&str> = items.iter().map(|f| f.name()).collect();
    names.join(", ")
}

/// Compares rustc's text with the committed snapshot, or writes it with --bless.
fn snapshot(file: &Path, rendered: &str, bless: bool) -> Result<String, String> {
    let now = normalize(rendered);
    let shown = file
        .strip_prefix(file.ancestors().nth(3).unwrap_or(file))
        .unwrap_or(file)
        .display();
    if bless {
        fs::write(file, &now).map_err(|e| format!("{}: {e}", file.display()))?;
        return Ok(format!("wrote {shown}"));
    }
    let before = fs::read_to_string(file).unwrap_or_default();
    if before == now {
        return Ok(format!("matches {shown}"));
    }
    let line = before
        .lines()
        .zip(now.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(before.lines().count().min(now.lines().count()));
    Err(format!(
        "{shown} differs from what rustc prints now (first difference at line {}: {:?}); \
         if the change is expected, run `cargo labs verify --bless`",
        line + 1,
        now.lines().nth(line).unwrap_or("<end of output>")
    ))
}

/// Makes compiler text independent of the machine: registry and toolchain paths.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&shorten(
            &shorten(line, "/registry/src/", "$CARGO/"),
            "/rustc/",
            "$RUST/",
        ));
        out.push('\n');
    }
    out
}

/// Replaces ".../registry/src/index.crates.io-XXXX/" (or "/rustc/HASH/") by `with`.
fn shorten(line: &str, marker: &str, with: &str) -> String {
    let Some(at) = line.find(marker) else {
        return line.to_owned();
    };
    let start = line[..at]
        .rfind(|c: char| c.is_whitespace())
        .map_or(0, |i| i + 1);
    let after = at + marker.len();
    let Some(end) = line[after..].find('/') else {
        return line.to_owned();
    };
    let mut rest = &line[after + end + 1..];
    if marker == "/rustc/" {
        rest = rest.strip_prefix("library/").unwrap_or(rest);
    }
    format!("{}{with}{rest}", &line[..start])
}

/// `'static` in a solution is a contract breach unless its Cargo.toml says why.
fn no_static(solution_dir: &Path, manifest: &toml::Table) -> Result<String, String> {
    let allowed = manifest
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("lab"))
        .and_then(|l| l.get("allow-static"))
        .and_then(|a| a.as_str());
    let mut hits = Vec::new();
    for file in lesson::rust_files(&solution_dir.join("src"))? {
        let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("'static") {
                hits.push(format!(
                    "{}:{}",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    n + 1
                ));
            }
        }
    }
    match (hits.is_empty(), allowed) {
        (true, _) => Ok("no 'static".into()),
        (false, Some(why)) => Ok(format!("'static allowed: {why}")),
        (false, None) => Err(format!(
            "'static at {} (say why in [package.metadata.lab] allow-static, or remove it)",
            hits.join(", ")
        )),
    }
}

fn variants(dir: &Path) -> Result<Vec<PathBuf>, String> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    lesson::rust_files(dir)
}

/// No timeline names a mistake: "12 timelines, 4,210 events".
fn no_patterns(timelines: &[crate::trace::Timeline]) -> Result<String, String> {
    let named: Vec<String> = timelines
        .iter()
        .flat_map(|t| {
            t.patterns
                .iter()
                .map(move |h| format!("{}: {} ({})", t.test, h.id, h.detail))
        })
        .collect();
    if named.is_empty() {
        let events: usize = timelines.iter().map(|t| t.total).sum();
        Ok(format!(
            "{}, {}, none named",
            plural(timelines.len(), "timeline", "timelines"),
            plural(events, "event", "events")
        ))
    } else {
        Err(named.join("; "))
    }
}

/// The mistakes a wrong answer's header expects, named in its failing tests' timelines.
fn expect_patterns(
    want: &[String],
    timelines: &[crate::trace::Timeline],
) -> Result<String, String> {
    let mut seen: Vec<&str> = timelines
        .iter()
        .filter(|t| t.outcome == "failed")
        .flat_map(|t| t.patterns.iter().map(|h| h.id.as_str()))
        .collect();
    seen.sort();
    seen.dedup();
    let missing: Vec<&String> = want
        .iter()
        .filter(|w| !seen.contains(&w.as_str()))
        .collect();
    if missing.is_empty() {
        Ok(format!("timelines name {}", seen.join(", ")))
    } else {
        Err(format!(
            "expected the failing tests' timelines to name {}, they name [{}]",
            want.join(", "),
            seen.join(", ")
        ))
    }
}

/// A wrong (or alternative) answer's header and body.
struct Wrong {
    expect: Expect,
    /// Mistakes the timeline recorder must name in the failing tests' timelines
    /// (`//! expect-pattern: lost-wake, foreign-waker`).
    patterns: Vec<String>,
    /// Tests that may fail too, or not: a wrong answer whose fault shows through a race
    /// it loses only most of the time (`//! may-also-fail: test_c`). The `expect-fail`
    /// tests must fail every time.
    may_also_fail: Vec<String>,
    /// `//! may-hang`: a wrong answer that spins in its failing tests, whose threads go on
    /// spinning after their watchdog fails them. On a loaded machine the binary may reach
    /// its time limit before the last of them has failed: that counts as red too, as long
    /// as every test still running is one it is expected to fail.
    may_hang: bool,
    replaces: String,
    body: String,
}

fn parse_wrong(text: &str) -> Result<Wrong, String> {
    let list = |s: &str| {
        s.split(',')
            .map(|x| x.trim().to_owned())
            .filter(|x| !x.is_empty())
            .collect()
    };
    let (mut expect, mut replaces, mut body) = (None, "solution".to_owned(), String::new());
    let mut may_also_fail = Vec::new();
    let mut may_hang = false;
    let mut patterns = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("//!").map(str::trim) {
            Some(h) if h.starts_with("expect-fail:") => {
                expect = Some(Expect::Fails(list(&h[12..])))
            }
            Some(h) if h.starts_with("expect-error:") => {
                expect = Some(Expect::Errors(list(&h[13..])))
            }
            Some(h) if h.starts_with("expect-pass") => expect = Some(Expect::Pass),
            Some(h) if h.starts_with("expect-miri:") => {
                expect = Some(Expect::Miri(h[12..].trim().to_owned()))
            }
            Some(h) if h.starts_with("expect-lesson:") => {
                expect = Some(Expect::Lesson(lesson::parse_list(&list(&h[14..]))?))
            }
            Some(h) if h.starts_with("may-also-fail:") => may_also_fail = list(&h[14..]),
            Some("may-hang") => may_hang = true,
            Some(h) if h.starts_with("expect-pattern:") => patterns = list(&h[15..]),
            Some(h) if h.starts_with("replaces:") => replaces = h[9..].trim().to_owned(),
            Some(_) => {}
            None => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    let expect = expect.ok_or(
        "the header needs `//! expect-fail: …`, `//! expect-error: …`, `//! expect-lesson: …`, `//! expect-miri: …` or `//! expect-pass`",
    )?;
    Ok(Wrong {
        expect,
        patterns,
        may_also_fail,
        may_hang,
        replaces,
        body,
    })
}

/// A `may-hang` wrong answer stopped at the time limit: red as expected when every test
/// still running, and every one that failed before, is one it is expected to fail.
fn hung_as_expected(
    want: &[String],
    may_also: &[String],
    running: &[String],
    failed: &[String],
) -> bool {
    !running.is_empty()
        && running.iter().all(|t| want.contains(t))
        && failed
            .iter()
            .all(|t| want.contains(t) || may_also.contains(t))
}

/// The solution's source with the anchored region `name` replaced by `body`.
fn splice(source: &str, name: &str, body: &str) -> Result<String, String> {
    let is = |line: &str, tag: &str| line.trim() == format!("// {tag}: {name}");
    let lines: Vec<&str> = source.lines().collect();
    let start = lines
        .iter()
        .position(|l| is(l, "ANCHOR"))
        .ok_or(format!("no `// ANCHOR: {name}`"))?;
    let end = lines
        .iter()
        .position(|l| is(l, "ANCHOR_END"))
        .ok_or(format!("no `// ANCHOR_END: {name}`"))?;
    let mut out = lines[..start].join("\n");
    out.push('\n');
    out.push_str(body);
    out.push_str(&lines[end + 1..].join("\n"));
    out.push('\n');
    Ok(out)
}

fn check_variant(
    paths: &Paths,
    options: &Options,
    lab: &Lab,
    (file, folder): (&Path, &str),
    target: &Path,
) -> Result<String, String> {
    let wrong = parse_wrong(&fs::read_to_string(file).map_err(|e| e.to_string())?)?;
    if let Expect::Lesson(items) = &wrong.expect
        && let Some(item) = items.iter().find(|i| {
            !lab.forbid.contains(i)
                && **i != Forbid::GivenCode
                && !(**i == Forbid::MiriCfg && lab.miri.is_some())
                && !(**i == Forbid::NewApi && lab.fixed_api)
        })
    {
        return Err(format!(
            "expect-lesson: {item}, but the lab's Cargo.toml does not forbid it"
        ));
    }
    let (dir, package) = variant_crate(paths, lab, file, folder)?;
    let outcome = Crate {
        workspace: &dir,
        package: &package,
        target_dir: Some(target.to_path_buf()),
        crate_dir: &dir,
        forbid: &lab.forbid,
        allowed_dependencies: None,
        runner_dir: &paths.runner_dir(),
        time_limit: lab.time_limit(options.time_limit),
        miri: lab.miri.as_ref(),
        given: Some(&crate::reset::sources(&lab.dir.join("src"))?),
        fixed_api: lab.fixed_api,
    }
    .evaluate()?
    .outcome;
    let verdict = match (&wrong.expect, &outcome) {
        (
            Expect::Fails(want),
            Outcome::Hung {
                running, failed, ..
            },
        ) if wrong.may_hang => {
            if hung_as_expected(want, &wrong.may_also_fail, running, failed) {
                Ok(format!(
                    "stopped at the time limit while {} still ran (may-hang), after {} failed",
                    running.join(", "),
                    if failed.is_empty() {
                        "none".to_owned()
                    } else {
                        failed.join(", ")
                    }
                ))
            } else {
                expect(&wrong.expect, &without(outcome, &wrong.may_also_fail))
            }
        }
        _ => expect(&wrong.expect, &without(outcome, &wrong.may_also_fail)),
    };
    if wrong.patterns.is_empty() {
        return verdict;
    }
    let timelines = crate::trace::read_all(&crate::trace::dir(&paths.runner_dir(), &package));
    match (verdict, expect_patterns(&wrong.patterns, &timelines)) {
        (Ok(fails), Ok(named)) => Ok(format!("{fails}; {named}")),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// Writes a wrong or alternative answer's throwaway crate (the solution with the file's
/// body in its anchored region) under target/labs-runner/FOLDER/NN-slug/NAME/, and returns
/// its folder and package name. `cargo labs trace NN --variant wrong/NAME` runs it too.
pub(crate) fn variant_crate(
    paths: &Paths,
    lab: &Lab,
    file: &Path,
    folder: &str,
) -> Result<(PathBuf, String), String> {
    let solution_dir = &paths.solutions.join(&lab.slug);
    let manifest = &read_toml(&solution_dir.join("Cargo.toml"))?;
    let name = &*file.file_stem().unwrap_or_default().to_string_lossy();
    let wrong = parse_wrong(&fs::read_to_string(file).map_err(|e| e.to_string())?)?;
    let dir = paths
        .target
        .join("labs-runner")
        .join(folder)
        .join(&lab.slug)
        .join(name);
    // The solution's src/, every file of it, with the anchored region replaced in the
    // file that has it (src/lib.rs, or a module of its own).
    let sources = crate::reset::sources(&solution_dir.join("src"))?;
    // Files are written only when they change (cargo rebuilds what has a newer mtime), and
    // a file the solution no longer has goes.
    if let Ok(before) = crate::reset::sources(&dir.join("src")) {
        for file in before.keys().filter(|f| !sources.contains_key(*f)) {
            let _ = fs::remove_file(dir.join("src").join(file));
        }
    }
    let holder = sources
        .iter()
        .find(|(_, text)| {
            text.lines()
                .any(|l| l.trim() == format!("// ANCHOR: {}", wrong.replaces))
        })
        .map(|(file, _)| file.clone())
        .ok_or(format!(
            "no `// ANCHOR: {}` in the solution's src/",
            wrong.replaces
        ))?;
    // The libraries have no unit tests today; while that holds, cargo need not build (and
    // verify run) an empty test harness of each answer's library.
    let mut unit_tests = false;
    for (file, text) in &sources {
        let path = dir.join("src").join(file);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let text = if *file == holder {
            splice(text, &wrong.replaces, &wrong.body)?
        } else {
            text.clone()
        };
        unit_tests |= has_unit_tests(&text);
        write_if_changed(&path, &text)?;
    }
    let package = format!("{folder}-{}-{}", lab.package, name.replace('_', "-"));
    let cargo_toml = wrong_manifest(paths, solution_dir, manifest, &package, unit_tests)?;
    write_if_changed(&dir.join("Cargo.toml"), &cargo_toml)?;
    // The solutions' lock file keeps every dependency at the version the solution uses.
    if let Ok(lock) = fs::read_to_string(paths.solutions.join("Cargo.lock")) {
        write_if_changed(&dir.join("Cargo.lock"), &lock)?;
    }
    Ok((dir, package))
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The outcome with the tests that may fail either way taken out of its failures.
fn without(outcome: Outcome, may_fail: &[String]) -> Outcome {
    match outcome {
        Outcome::Failing {
            failed,
            total,
            output,
            crashed,
            unknown,
        } if !may_fail.is_empty() => Outcome::Failing {
            failed: failed
                .into_iter()
                .filter(|t| !may_fail.contains(t))
                .collect(),
            total,
            output,
            crashed,
            unknown,
        },
        other => other,
    }
}

/// Whether a source file may hold unit tests (a `#[test]`, `#[cfg(test)]` or a test macro
/// of a runtime, such as `#[tokio::test]`).
fn has_unit_tests(text: &str) -> bool {
    text.contains("#[test]") || text.contains("cfg(test)") || text.contains("::test]")
}

/// A stand-alone manifest: the solution's library name and tests, and its dependencies
/// resolved against the solutions workspace's `[workspace.dependencies]`; without the
/// library's test harness when `unit_tests` is false.
fn wrong_manifest(
    paths: &Paths,
    solution_dir: &Path,
    manifest: &toml::Table,
    package: &str,
    unit_tests: bool,
) -> Result<String, String> {
    use toml::{Table, Value};
    let ws = read_toml(&paths.solutions.join("Cargo.toml"))?;
    let ws_table = ws.get("workspace");
    let ws_deps = ws_table
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default();
    let edition = ws_table
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("edition"))
        .cloned()
        .unwrap_or_else(|| "2024".into());
    let sol_package = manifest["package"]["name"].as_str().unwrap_or_default();
    let lib_name = manifest
        .get("lib")
        .and_then(|l| l.get("name"))
        .and_then(|n| n.as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| sol_package.replace('-', "_"));

    let mut out = Table::new();
    let mut pkg = Table::new();
    pkg.insert("name".into(), package.into());
    pkg.insert("version".into(), "0.0.0".into());
    pkg.insert("edition".into(), edition);
    pkg.insert("publish".into(), false.into());
    out.insert("package".into(), pkg.into());
    let mut lib = Table::new();
    lib.insert("name".into(), lib_name.into());
    lib.insert("path".into(), "src/lib.rs".into());
    if !unit_tests {
        lib.insert("test".into(), false.into());
    }
    out.insert("lib".into(), lib.into());

    let mut tests = Vec::new();
    for test in manifest
        .get("test")
        .and_then(|t| t.as_array())
        .into_iter()
        .flatten()
    {
        let mut t = test.as_table().cloned().unwrap_or_default();
        if let Some(path) = t.get("path").and_then(|p| p.as_str()) {
            let absolute = solution_dir.join(path).to_string_lossy().into_owned();
            t.insert("path".into(), absolute.into());
        }
        tests.push(Value::Table(t));
    }
    out.insert("test".into(), Value::Array(tests));

    for section in ["dependencies", "dev-dependencies"] {
        let Some(deps) = manifest.get(section).and_then(|d| d.as_table()) else {
            continue;
        };
        let mut resolved = Table::new();
        for (name, spec) in deps {
            let inherits = spec.get("workspace").and_then(|w| w.as_bool()) == Some(true);
            let base = if inherits {
                ws_deps
                    .get(name)
                    .ok_or(format!("{name} is not in [workspace.dependencies]"))?
            } else {
                spec
            };
            let mut dep = match base {
                Value::String(version) => {
                    Table::from_iter([("version".to_owned(), Value::from(version.clone()))])
                }
                other => other.as_table().cloned().unwrap_or_default(),
            };
            if let Some(Value::Array(more)) = spec.get("features") {
                let mut features = dep
                    .get("features")
                    .and_then(|f| f.as_array())
                    .cloned()
                    .unwrap_or_default();
                features.extend(more.iter().cloned());
                dep.insert("features".into(), Value::Array(features));
            }
            for (key, value) in spec.as_table().into_iter().flatten() {
                if key != "workspace" && key != "features" {
                    dep.insert(key.clone(), value.clone());
                }
            }
            // A path dependency (e.g. lab-support) is relative to the solution's folder.
            if let Some(path) = dep.get("path").and_then(|p| p.as_str()) {
                let absolute = solution_dir.join(path).to_string_lossy().into_owned();
                dep.insert("path".into(), absolute.into());
            }
            resolved.insert(name.clone(), Value::Table(dep));
        }
        out.insert(section.into(), Value::Table(resolved));
    }
    // A workspace of its own, so the solutions workspace does not claim it.
    out.insert("workspace".into(), Value::Table(Table::new()));
    // The workspace's profiles too: the same settings build the dependencies once, into
    // the same files in the shared target directory. The throwaway crate itself is built
    // once and never edited: no incremental cache, and no debug info (a panic names its
    // file and line without it, and verify prints no backtraces), which more than halves
    // its build.
    let mut profile = ws
        .get("profile")
        .and_then(|p| p.as_table())
        .cloned()
        .unwrap_or_default();
    let dev = profile
        .entry("dev")
        .or_insert_with(|| Value::Table(Table::new()));
    if let Some(dev) = dev.as_table_mut() {
        dev.insert("debug".into(), false.into());
        dev.insert("incremental".into(), false.into());
    }
    out.insert("profile".into(), Value::Table(profile));
    toml::to_string(&out).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_that_took_longest_last_time_go_first() {
        let last = |k: usize| [Some(3.0), None, Some(40.0), Some(3.0), Some(0.5)][k];
        let mut queue = vec![0, 1, 2, 3, 4];
        longest_first(&mut queue, last);
        assert_eq!(queue, [1, 2, 0, 3, 4]);
    }

    #[test]
    fn times_are_kept_per_job_across_runs() {
        let dir = std::env::temp_dir().join(format!("verify-seconds-{}", std::process::id()));
        let file = dir.join("verify-seconds.tsv");
        let _ = fs::remove_dir_all(&dir);
        assert!(last_seconds(&file).is_empty());
        let first = vec![
            ("19 wrong/a.rs".to_owned(), 61.24),
            ("19 solution".into(), 9.0),
        ];
        save_seconds(&file, last_seconds(&file), first);
        // A later run of another lab keeps these; a line that does not read is skipped.
        let mut text = fs::read_to_string(&file).unwrap();
        text.push_str("not a time\tx\nNaN\ty\n");
        fs::write(&file, text).unwrap();
        save_seconds(
            &file,
            last_seconds(&file),
            vec![("19 solution".into(), 7.0)],
        );
        let times = last_seconds(&file);
        assert_eq!(times.len(), 2, "{times:?}");
        assert_eq!(times["19 wrong/a.rs"], 61.2);
        assert_eq!(times["19 solution"], 7.0);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn splices_an_anchored_region() {
        let src = "use x;\n// ANCHOR: f\nfn f() {}\n// ANCHOR_END: f\nfn g() {}\n";
        assert_eq!(
            splice(src, "f", "fn f() { wrong() }\n").unwrap(),
            "use x;\nfn f() { wrong() }\nfn g() {}\n"
        );
        assert!(splice(src, "h", "").is_err());
    }

    #[test]
    fn sees_unit_tests_in_a_library() {
        assert!(has_unit_tests("#[cfg(test)]\nmod tests {}\n"));
        assert!(has_unit_tests("#[test]\nfn t() {}\n"));
        assert!(has_unit_tests("#[tokio::test]\nasync fn t() {}\n"));
        assert!(!has_unit_tests(
            "/// Tested by tests/server.rs.\npub fn serve() {}\n"
        ));
    }

    #[test]
    fn reads_a_wrong_answer_header() {
        let w =
            parse_wrong("//! Wrong: slow.\n//! expect-fail: a, b\n//! replaces: f\n\nfn f() {}\n")
                .unwrap();
        assert!(matches!(w.expect, Expect::Fails(ref t) if t == &["a", "b"]));
        assert_eq!(w.replaces, "f");
        assert_eq!(w.body, "\nfn f() {}\n");
        assert!(parse_wrong("fn f() {}").is_err());
    }

    #[test]
    fn a_may_hang_answer_is_red_only_where_it_is_expected_to_fail() {
        let v = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let w = parse_wrong("//! expect-fail: a, b\n//! may-hang\n//! replaces: f\nfn f() {}\n")
            .unwrap();
        assert!(w.may_hang);
        assert!(
            !parse_wrong("//! expect-fail: a\nfn f() {}\n")
                .unwrap()
                .may_hang
        );
        let (want, also) = (v(&["a", "b"]), v(&["c"]));
        assert!(hung_as_expected(&want, &also, &v(&["b"]), &v(&["a"])));
        assert!(hung_as_expected(&want, &also, &v(&["a", "b"]), &v(&["c"])));
        // A test it should pass still running, or failed: not as expected.
        assert!(!hung_as_expected(&want, &also, &v(&["d"]), &v(&["a"])));
        assert!(!hung_as_expected(&want, &also, &v(&["b"]), &v(&["d"])));
        assert!(!hung_as_expected(&want, &also, &[], &v(&["a"])));
    }

    #[test]
    fn normalizes_machine_paths() {
        let line = "  --> /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/tokio-1.54.1/src/task/spawn.rs:168:21";
        assert_eq!(
            normalize(line),
            "  --> $CARGO/tokio-1.54.1/src/task/spawn.rs:168:21\n"
        );
        let std_line = "  --> /rustc/59807616e0000000000000000000000000000000/library/core/src/future/mod.rs:1:1";
        assert_eq!(
            normalize(std_line),
            "  --> $RUST/core/src/future/mod.rs:1:1\n"
        );
    }
}
