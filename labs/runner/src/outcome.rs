//! Runs a crate's tests with cargo and says where it stands: does not compile (with
//! the error codes and rustc's own text), some tests failing (by name), stopped because
//! a test hangs, green but still using what the lab forbids, or done.
//! Nothing is stored: every answer comes from running the tests now.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::lesson::{Breach, Forbid, Lesson};
use crate::style;

#[derive(Debug)]
pub enum Outcome {
    DoesNotCompile {
        /// Every error rustc reported, in order.
        errors: Vec<Diagnostic>,
        /// Everything rustc printed (errors and warnings), as a learner sees it.
        rendered: String,
    },
    Failing {
        failed: Vec<String>,
        total: usize,
        output: String,
        /// Tests that crashed their test binary (an abort, a double free): each with how it
        /// ended ("signal 6, SIGABRT"). They are among `failed`.
        crashed: Vec<(String, String)>,
        /// Tests never run because a crash, or the time limit, stopped them: the count is
        /// partial.
        unknown: usize,
    },
    /// A test binary ran past the time limit and was stopped.
    Hung {
        limit: Duration,
        /// "tests/fan_out.rs"
        binary: String,
        /// The tests that had not finished.
        running: Vec<String>,
        /// Tests that failed before it was stopped.
        failed: Vec<String>,
        output: String,
    },
    /// Every test passes, but `src/` still uses what the lab's `forbid` list names.
    BreaksLesson { total: usize, breaches: Vec<Breach> },
    /// Every test passes and the lesson is kept, but the lab's code is `unsafe` and is done
    /// only once Miri agrees (`miri = true`), and Miri is not installed.
    MiriNotRun {
        total: usize,
        toolchain: String,
        /// Why it could not run (rustup's or cargo-miri's own words).
        why: String,
    },
    /// Every test passes, but under Miri a test shows undefined behaviour (or fails).
    MiriFailed {
        total: usize,
        /// The test Miri stopped in, when it can be told.
        test: Option<String>,
        /// Miri's report: its `error:` line and what follows.
        report: String,
        /// Everything `cargo miri test` printed.
        output: String,
    },
    Done {
        total: usize,
        /// The tests passed under Miri too.
        miri: bool,
    },
}

impl Outcome {
    pub fn is_done(&self) -> bool {
        matches!(self, Outcome::Done { .. })
    }

    /// One short line for the board.
    pub fn summary(&self) -> String {
        match self {
            Outcome::DoesNotCompile { errors, .. } => {
                format!("does not compile ({})", error_summary(errors))
            }
            Outcome::Failing {
                failed,
                total,
                crashed,
                unknown,
                ..
            } => {
                let mut text = format!(
                    "{} of {} failing",
                    failed.len(),
                    plural(*total, "test", "tests")
                );
                match crashed.as_slice() {
                    [] => {}
                    [(one, _)] => text.push_str(&format!(" ({one} crashed the test binary)")),
                    many => text.push_str(&format!(" ({} crashed the test binary)", many.len())),
                }
                if *unknown > 0 {
                    text.push_str(&format!(
                        "; {} not run, the count is partial",
                        plural(*unknown, "test", "tests")
                    ));
                }
                text
            }
            Outcome::Hung { limit, running, .. } => {
                let what = match running.as_slice() {
                    [one] => format!("{one} never finished"),
                    [] => "a test never finished".to_owned(),
                    many => format!("{} tests never finished", many.len()),
                };
                format!("stopped after {} s: {what}", limit.as_secs())
            }
            Outcome::BreaksLesson { breaches, .. } => {
                let first = &breaches[0];
                let more = match breaches.len() - 1 {
                    0 => String::new(),
                    1 => " (and 1 more place)".to_owned(),
                    n => format!(" (and {n} more places)"),
                };
                format!("tests pass, but {}{more}", first.short())
            }
            Outcome::MiriNotRun { .. } => "tests pass, Miri not run".to_owned(),
            Outcome::MiriFailed { test, .. } => match test {
                Some(test) => format!("tests pass, but Miri reports an error in {test}"),
                None => "tests pass, but not under Miri".to_owned(),
            },
            Outcome::Done { total, miri } => {
                let tests = plural(*total, "test passes", "tests pass");
                if *miri {
                    format!("done ({tests}, under Miri too)")
                } else {
                    format!("done ({tests})")
                }
            }
        }
    }
}

/// Error codes with how often each occurs, and the same for the messages of errors that
/// have no code (rustc gives some none, e.g. "future cannot be sent between threads safely").
pub fn error_kinds(errors: &[Diagnostic]) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let (mut codes, mut uncoded) = (BTreeMap::new(), BTreeMap::new());
    for e in errors {
        match &e.code {
            Some(code) => *codes.entry(code.clone()).or_insert(0) += 1,
            None => *uncoded.entry(e.message.clone()).or_insert(0) += 1,
        }
    }
    (codes, uncoded)
}

/// "1 error: E0308", "5 errors: 1 E0308, 4 without a code", "3 errors without a code".
pub fn error_summary(errors: &[Diagnostic]) -> String {
    let (codes, uncoded) = error_kinds(errors);
    let without: usize = uncoded.values().sum();
    match (errors.len(), codes.keys().next()) {
        (1, Some(code)) => format!("1 error: {code}"),
        (1, None) => "1 error without a code".to_owned(),
        (n, None) => format!("{n} errors without a code"),
        (n, Some(_)) => {
            let mut parts: Vec<String> = codes.iter().map(|(c, k)| format!("{k} {c}")).collect();
            if without > 0 {
                parts.push(format!("{without} without a code"));
            }
            format!("{n} errors: {}", parts.join(", "))
        }
    }
}

/// "1 test", "6 tests": the count with the word it takes.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The outcome of a crate, and the compiler's warnings on the way (shown before test
/// failures, as they often point at the mistake).
pub struct Evaluation {
    pub outcome: Outcome,
    pub warnings: Vec<Diagnostic>,
}

/// The cargo that started us (so the pinned toolchain is used), or `cargo`.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Where to run cargo, for which package, and (if not the workspace's own) which target dir.
pub struct Crate<'a> {
    pub workspace: &'a Path,
    pub package: &'a str,
    pub target_dir: Option<PathBuf>,
    /// The crate's folder: its `src/` is what `forbid` applies to.
    pub crate_dir: &'a Path,
    /// The lab's lesson, checked once every test passes.
    pub forbid: &'a [Forbid],
    /// The only crates `[dependencies]` may name (`None`: not checked).
    pub allowed_dependencies: Option<&'a [String]>,
    /// target/labs-runner/: generated files (the clippy.toml of a forbid list).
    pub runner_dir: &'a Path,
    /// A test binary still running after this long is stopped: it hangs.
    pub time_limit: Duration,
    /// Done only once the tests pass under Miri too (`miri = true`).
    pub miri: Option<&'a Miri>,
    /// The starter's `src/` files: the code it gives (`// ANCHOR: given…`) must be unchanged
    /// (`None`: not checked, e.g. no starter to compare with).
    pub given: Option<&'a std::collections::BTreeMap<String, String>>,
    /// The starter's public API is all the crate may have (`fixed-api = true`), checked
    /// against `given`.
    pub fixed_api: bool,
}

/// How to run a lab's tests under Miri: `miri-toolchain` and `miri-flags` in labs/Cargo.toml's
/// `[workspace.metadata.labs]`.
#[derive(Debug, Clone)]
pub struct Miri {
    pub toolchain: String,
    pub flags: String,
}

impl Crate<'_> {
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = cargo();
        cmd.current_dir(self.workspace)
            .args(["test", "--package", self.package]);
        if let Some(dir) = &self.target_dir {
            cmd.arg("--target-dir").arg(dir);
        }
        cmd.args(args);
        cmd
    }

    /// Builds the tests, then runs each test binary under the time limit.
    pub fn evaluate(&self) -> Result<Evaluation, String> {
        let build = run(self.command(&["--no-run", "--message-format=json"]))?;
        let stdout = String::from_utf8_lossy(&build.stdout);
        let diagnostics = Diagnostics::parse(&stdout);
        if !build.status.success() {
            if diagnostics.errors.is_empty() {
                return Err(format!(
                    "cargo failed before compiling {}:\n{}",
                    self.package,
                    String::from_utf8_lossy(&build.stderr)
                ));
            }
            return Ok(Evaluation {
                outcome: Outcome::DoesNotCompile {
                    errors: diagnostics.errors,
                    rendered: diagnostics.rendered,
                },
                warnings: diagnostics.warnings,
            });
        }
        let outcome = self.run_tests(&stdout)?;
        Ok(Evaluation {
            outcome,
            warnings: diagnostics.warnings,
        })
    }

    /// Runs each test binary of a successful build under the time limit.
    fn run_tests(&self, stdout: &str) -> Result<Outcome, String> {
        let (mut passed, mut failed, mut output) = (0, Vec::new(), String::new());
        // Tests that record their timeline (lab-support's) write it here: this run's only.
        let timelines = crate::trace::dir(self.runner_dir, self.package);
        let _ = std::fs::remove_dir_all(&timelines);
        let traced = |binary: &TestBinary, args: &[&str]| {
            let mut cmd = binary.command(args);
            cmd.env(
                crate::trace::DIR_VAR,
                crate::trace::binary_dir(self.runner_dir, self.package, &binary.shown),
            );
            cmd
        };
        let (mut crashed, mut unknown, mut no_result) = (Vec::new(), 0, false);
        // Every test that passed, by name (Miri names a test by its thread, cut short).
        let mut passed_names: Vec<String> = Vec::new();
        for binary in TestBinary::from_build(stdout) {
            let ran = run_limited(traced(&binary, &[]), self.time_limit, Some(&binary.shown))?;
            let (p, f) = test_results(&ran.stdout);
            passed += p;
            passed_names.extend(
                ran.stdout
                    .lines()
                    .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... ok"))
                    .map(str::to_owned),
            );
            // A binary without tests (a lab's unit tests, usually) is not worth a word.
            if !(ran.status == Some(true) && ran.stdout.contains("running 0 tests")) {
                output.push_str(&format!("     Running {}\n", binary.shown));
                output.push_str(&ran.stdout);
                output.push_str(&ran.stderr);
            }
            failed.extend(f);
            match ran.status {
                None => {
                    // Which tests never finished: the binary's list minus those reported.
                    let finished = finished_tests(&ran.stdout);
                    let running = binary
                        .list()
                        .into_iter()
                        .filter(|t| !finished.contains(t))
                        .collect();
                    return Ok(Outcome::Hung {
                        limit: self.time_limit,
                        binary: binary.shown,
                        running,
                        failed,
                        output,
                    });
                }
                Some(true) => {}
                // libtest ends every run it finishes with "test result:"; without it, the
                // process died under a test (an abort, a double free, a stack overflow),
                // and the tests that had not reported are run again one at a time, to
                // find which one it was and how the others fare.
                Some(false) if !ran.stdout.contains("\ntest result: ") => {
                    let finished = finished_tests(&ran.stdout);
                    let rest: Vec<String> = binary
                        .list()
                        .into_iter()
                        .filter(|t| !finished.contains(t))
                        .collect();
                    if rest.is_empty() {
                        no_result = true;
                    }
                    let started = Instant::now();
                    for (k, test) in rest.iter().enumerate() {
                        let Some(left) = self.time_limit.checked_sub(started.elapsed()) else {
                            unknown += rest.len() - k;
                            break;
                        };
                        let cmd = traced(&binary, &[test, "--exact", "--test-threads=1"]);
                        let one = run_limited(cmd, left, Some(&binary.shown))?;
                        match one.status {
                            Some(true) => passed += 1,
                            Some(false) if one.stdout.contains("\ntest result: ") => {
                                failed.push(test.clone());
                                output.push_str(&one.stdout);
                                output.push_str(&one.stderr);
                            }
                            Some(false) => {
                                failed.push(test.clone());
                                crashed.push((test.clone(), one.how.clone()));
                                output.push_str(&format!(
                                    "\n---- {test} crashed the test binary ({}) ----\n",
                                    one.how
                                ));
                                output.push_str(&one.stdout);
                                output.push_str(&one.stderr);
                            }
                            None => {
                                unknown += rest.len() - k;
                                break;
                            }
                        }
                    }
                }
                Some(false) => {}
            }
        }
        failed.sort();
        failed.dedup();
        let total = passed + failed.len() + unknown;
        if failed.is_empty() && unknown == 0 && !no_result && total > 0 {
            let compiled = compiled_files(stdout, self.workspace, self.crate_dir);
            return self.lesson(total, &compiled, &passed_names);
        }
        if failed.is_empty() {
            // A non-zero exit without a failing test, or no tests at all.
            failed.push(if total == 0 {
                "(no tests ran)".into()
            } else {
                "(test binary crashed)".into()
            });
        }
        Ok(Outcome::Failing {
            failed,
            total: total.max(1),
            output,
            crashed,
            unknown,
        })
    }
}

/// One test executable cargo built, from its `compiler-artifact` message.
pub(crate) struct TestBinary {
    executable: PathBuf,
    manifest_dir: PathBuf,
    /// "tests/fan_out.rs", or "unittests src/lib.rs", as cargo shows it.
    pub(crate) shown: String,
}

impl TestBinary {
    /// The test executables of a `cargo test --no-run --message-format=json`, unit tests first.
    pub(crate) fn from_build(json_lines: &str) -> Vec<TestBinary> {
        let mut found = Vec::new();
        for line in json_lines.lines() {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if msg["reason"] != "compiler-artifact" || msg["profile"]["test"] != true {
                continue;
            }
            let Some(executable) = msg["executable"].as_str() else {
                continue;
            };
            let manifest_dir = Path::new(msg["manifest_path"].as_str().unwrap_or(""))
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let src = Path::new(msg["target"]["src_path"].as_str().unwrap_or(""));
            let src = src
                .strip_prefix(&manifest_dir)
                .unwrap_or(src)
                .to_string_lossy()
                .replace('\\', "/");
            let kinds = msg["target"]["kind"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let unit = !kinds.iter().any(|k| k == "test");
            found.push((
                !unit,
                src.clone(),
                TestBinary {
                    executable: executable.into(),
                    manifest_dir,
                    shown: if unit {
                        format!("unittests {src}")
                    } else {
                        src
                    },
                },
            ));
        }
        found.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        found.into_iter().map(|(_, _, b)| b).collect()
    }

    /// The binary, to run with `args` as cargo test would.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.executable);
        cmd.current_dir(&self.manifest_dir)
            .env("CARGO_MANIFEST_DIR", &self.manifest_dir)
            .args(["--color", "never"])
            .args(args);
        cmd
    }

    /// The names of its tests (`--list`), to tell which ones never finished.
    fn list(&self) -> Vec<String> {
        let Ok(out) = Command::new(&self.executable)
            .current_dir(&self.manifest_dir)
            .args(["--list", "--format", "terse"])
            .output()
        else {
            return Vec::new();
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_suffix(": test"))
            .map(str::to_owned)
            .collect()
    }
}

/// What a test binary printed, and how it ended: `None` if it was stopped at the limit.
pub(crate) struct Ran {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    status: Option<bool>,
    /// How it ended, in words: "exit code 101", "signal 6, SIGABRT".
    how: String,
}

/// "exit code 101", "signal 6, SIGABRT", "exit code 0xC0000409".
fn how_it_ended(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                4 => ", SIGILL",
                6 => ", SIGABRT",
                7 => ", SIGBUS",
                8 => ", SIGFPE",
                9 => ", SIGKILL",
                11 => ", SIGSEGV",
                _ => "",
            };
            return format!("signal {signal}{name}");
        }
    }
    match status.code() {
        // Windows reports a crash as an NTSTATUS code (0xC0000409: a fail-fast abort).
        Some(code) if code < 0 => format!("exit code {:#X}", code as u32),
        Some(code) => format!("exit code {code}"),
        None => "no exit code".to_owned(),
    }
}

/// Whether a test binary that runs long says so while it runs (`check`, `watch`: one note
/// after 10 s, so the wait does not look like a freeze). The board turns it off: its line
/// for the lab says how the run ended, and a note in the middle of the board reads as a
/// fault.
static SLOW_NOTES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

pub fn set_slow_notes(on: bool) {
    SLOW_NOTES.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Runs `cmd` (a test binary: a direct child, which starts no processes of its own) and
/// kills it if it runs longer than `limit`. Portable: std's `Child::kill` is SIGKILL on
/// Unix and TerminateProcess on Windows.
/// `shown` names a test binary, to say so when it runs long (a hint that it hangs).
pub(crate) fn run_limited(
    mut cmd: Command,
    limit: Duration,
    shown: Option<&str>,
) -> Result<Ran, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not run {:?}: {e}", cmd.get_program()))?;
    let read = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read(Box::new(child.stderr.take().expect("piped stderr")));
    let start = Instant::now();
    let mut told = false;
    let mut how = String::new();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            how = how_it_ended(&status);
            break Some(status.success());
        }
        let elapsed = start.elapsed();
        if elapsed >= limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        if let Some(shown) = shown.filter(|_| {
            !told
                && elapsed >= Duration::from_secs(10)
                && SLOW_NOTES.load(std::sync::atomic::Ordering::Relaxed)
        }) {
            told = true;
            eprintln!(
                "{}",
                style::dim(&format!(
                    "({shown} has been running for 10 s; a test binary still running at {} s \
                     is stopped and reported as hanging)",
                    limit.as_secs()
                ))
            );
        }
        thread::sleep(Duration::from_millis(20));
    };
    Ok(Ran {
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        status,
        how,
    })
}

impl Crate<'_> {
    /// Every test passes: is the lesson learned too?
    fn lesson(
        &self,
        total: usize,
        compiled: &[PathBuf],
        tests: &[String],
    ) -> Result<Outcome, String> {
        if let Some(allowed) = self.allowed_dependencies {
            let breaches = crate::lesson::new_dependencies(self.crate_dir, allowed)?;
            if !breaches.is_empty() {
                return Ok(Outcome::BreaksLesson { total, breaches });
            }
        }
        if let Some(reference) = self.given {
            let now = crate::reset::sources(&self.crate_dir.join("src"))?;
            let mut breaches = crate::lesson::given_changed(reference, &now);
            if self.fixed_api {
                breaches.extend(crate::lesson::new_api(reference, &now));
            }
            if !breaches.is_empty() {
                return Ok(Outcome::BreaksLesson { total, breaches });
            }
        }
        if !self.forbid.is_empty() {
            let breaches = Lesson {
                workspace: self.workspace,
                package: self.package,
                crate_dir: self.crate_dir,
                target_dir: self.target_dir.as_deref(),
                clippy_dir: self.runner_dir.join("clippy").join(self.package),
                forbid: self.forbid,
                compiled,
                miri: self.miri.is_some(),
            }
            .breaches()?;
            if !breaches.is_empty() {
                return Ok(Outcome::BreaksLesson { total, breaches });
            }
        }
        match self.miri {
            Some(miri) => self.under_miri(total, miri, tests),
            None => Ok(Outcome::Done { total, miri: false }),
        }
    }

    /// The tests once more, under Miri: `rustup run TOOLCHAIN cargo miri test`.
    fn under_miri(&self, total: usize, miri: &Miri, tests: &[String]) -> Result<Outcome, String> {
        let not_run = |why: String| {
            Ok(Outcome::MiriNotRun {
                total,
                toolchain: miri.toolchain.clone(),
                why,
            })
        };
        let rustup = |args: &[&str]| {
            let mut cmd = Command::new("rustup");
            cmd.arg("run").arg(&miri.toolchain).args(args);
            // `cargo labs` runs under the pinned stable cargo, which tells its children
            // where it is: cargo-miri would use that cargo instead of the nightly's.
            for var in [
                "CARGO",
                "RUSTC",
                "RUSTDOC",
                "RUSTUP_TOOLCHAIN",
                "RUSTC_WRAPPER",
            ] {
                cmd.env_remove(var);
            }
            cmd.current_dir(self.workspace);
            cmd
        };
        match rustup(&["cargo", "miri", "--version"]).output() {
            Err(e) => return not_run(format!("could not run rustup: {e}")),
            Ok(out) if !out.status.success() => {
                let said = String::from_utf8_lossy(&out.stderr);
                return not_run(said.lines().next().unwrap_or("").trim().to_owned());
            }
            Ok(_) => {}
        }
        let mut cmd = rustup(&["cargo", "miri", "test", "--tests", "--package"]);
        cmd.arg(self.package);
        if let Some(dir) = &self.target_dir {
            cmd.arg("--target-dir").arg(dir);
        }
        // One test at a time: when Miri stops the process, the test it was in is the one
        // libtest announced last.
        cmd.args(["--", "--test-threads=1", "--color", "never"])
            .env("MIRIFLAGS", &miri.flags);
        eprintln!(
            "{}",
            style::dim("(every test passes: running them again under Miri, which takes a minute)")
        );
        let ran = run_limited(cmd, self.time_limit * 5, None)?;
        let output = format!("{}{}", ran.stdout, ran.stderr);
        match ran.status {
            Some(true) => return Ok(Outcome::Done { total, miri: true }),
            None => {
                return Ok(Outcome::MiriFailed {
                    total,
                    test: None,
                    report: format!(
                        "cargo miri test was still running after {} s and was stopped",
                        (self.time_limit * 5).as_secs()
                    ),
                    output,
                });
            }
            Some(false) => {}
        }
        if !ran.stdout.contains("running ") && ran.stderr.contains("rust-src") {
            return not_run(
                ran.stderr
                    .lines()
                    .find(|l| l.contains("rust-src"))
                    .unwrap_or("")
                    .trim()
                    .to_owned(),
            );
        }
        let unfinished = ran
            .stdout
            .lines()
            .rev()
            .filter_map(|l| l.strip_prefix("test "))
            .filter_map(|l| l.strip_suffix(" ..."))
            .next()
            .map(str::to_owned);
        // Miri names the thread it stopped on, and libtest names a test's thread after it;
        // Linux keeps 15 bytes of a thread's name, so the full name is the one test that
        // starts with it.
        let thread = ran
            .stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("= note: this is on thread `"))
            .and_then(|l| l.strip_suffix('`'))
            .filter(|t| *t != "main")
            .map(|t| {
                let mut matching = tests.iter().filter(|n| n.starts_with(t));
                match (matching.next(), matching.next()) {
                    (Some(one), None) => one.clone(),
                    _ => t.to_owned(),
                }
            });
        let (_, failed) = test_results(&ran.stdout);
        let test = thread.or(unfinished).or_else(|| failed.first().cloned());
        Ok(Outcome::MiriFailed {
            total,
            test,
            report: miri_report(&ran.stderr, &ran.stdout),
            output,
        })
    }
}

/// Miri's report from `cargo miri test`'s output: from its first `error:` line, up to the
/// note that ends it (at most 40 lines); or a failing test's panic, if no error.
fn miri_report(stderr: &str, stdout: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    if let Some(start) = lines.iter().position(|l| l.starts_with("error: ")) {
        let end = lines[start..]
            .iter()
            .position(|l| {
                l.starts_with("error: aborting due to") || l.starts_with("error: test failed")
            })
            .map_or(lines.len(), |e| start + e);
        let mut report: Vec<&str> = lines[start..end].to_vec();
        report.truncate(40);
        return report.join("\n").trim_end().to_owned();
    }
    failures(stdout)
        .first()
        .map(TestFailure::one_line)
        .unwrap_or_else(|| "cargo miri test failed".to_owned())
}

/// The files the compiler read for the crate's library (and its unit tests), from the
/// dep-info files next to the artifacts of a `--message-format=json` build. rustc names
/// them as cargo named them to it: relative to the workspace, for a workspace's member.
fn compiled_files(json_lines: &str, workspace: &Path, crate_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for line in json_lines.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let manifest = Path::new(msg["manifest_path"].as_str().unwrap_or(""));
        if manifest.parent() != Some(crate_dir) && !same_dir(manifest.parent(), crate_dir) {
            continue;
        }
        let kinds = msg["target"]["kind"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if !kinds
            .iter()
            .any(|k| k.as_str().is_some_and(|k| k.contains("lib")))
        {
            continue;
        }
        let outputs = msg["filenames"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(msg.get("executable"))
            .filter_map(|f| f.as_str());
        for output in outputs {
            let output = Path::new(output);
            let stem = output.file_stem().unwrap_or_default().to_string_lossy();
            let is_library = output.extension().is_some_and(|e| {
                ["rlib", "rmeta", "so", "a", "dylib", "dll", "lib"]
                    .iter()
                    .any(|x| e == *x)
            });
            let stem = match stem.strip_prefix("lib") {
                Some(rest) if is_library => rest.to_owned(),
                _ => stem.into_owned(),
            };
            let dep_info = output.with_file_name(format!("{stem}.d"));
            if let Ok(text) = std::fs::read_to_string(&dep_info) {
                for file in crate::lesson::dep_info_files(&text) {
                    let file = crate::lesson::lexical(&workspace.join(file));
                    if !files.contains(&file) {
                        files.push(file);
                    }
                }
            }
        }
    }
    files
}

fn same_dir(a: Option<&Path>, b: &Path) -> bool {
    match (a.and_then(|a| a.canonicalize().ok()), b.canonicalize().ok()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

fn run(mut cmd: Command) -> Result<Output, String> {
    cmd.output()
        .map_err(|e| format!("could not run cargo: {e}"))
}

/// One message from rustc.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// "error[E0308]: mismatched types" has code Some("E0308") and message "mismatched types".
    pub code: Option<String>,
    pub message: String,
    /// Where its primary span points, as rustc shows it: "09-fan-out/src/lib.rs:12:5".
    pub place: Option<String>,
    /// The text of the labels on the spans ("`Rc<…>` cannot be sent between threads safely").
    pub labels: Vec<String>,
    /// rustc's own rendering, several lines with the code excerpt.
    pub rendered: String,
}

impl Diagnostic {
    /// One line: "09-fan-out/src/lib.rs:12:5: error[E0308]: mismatched types".
    pub fn one_line(&self, level: &str) -> String {
        let code = self
            .code
            .as_ref()
            .map(|c| format!("[{c}]"))
            .unwrap_or_default();
        match &self.place {
            Some(place) => format!("{place}: {level}{code}: {}", self.message),
            None => format!("{level}{code}: {}", self.message),
        }
    }
}

/// What rustc said while building, from cargo's `--message-format=json` lines.
struct Diagnostics {
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
    rendered: String,
}

impl Diagnostics {
    fn parse(json_lines: &str) -> Diagnostics {
        let mut d = Diagnostics {
            errors: Vec::new(),
            warnings: Vec::new(),
            rendered: String::new(),
        };
        let mut seen = std::collections::HashSet::new();
        for line in json_lines.lines() {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if msg["reason"] != "compiler-message" {
                continue;
            }
            let message = &msg["message"];
            let text = message["message"].as_str().unwrap_or("");
            let rendered = message["rendered"].as_str().unwrap_or("");
            // cargo test builds src/ twice (the library, and its unit tests): say it once.
            if !seen.insert(rendered.to_owned()) {
                continue;
            }
            d.rendered.push_str(rendered);
            // Totals ("aborting due to…", "2 warnings emitted") are not findings.
            if text.starts_with("aborting due to") || text.ends_with("emitted") {
                continue;
            }
            let spans = message["spans"].as_array().cloned().unwrap_or_default();
            let place = spans.iter().find(|s| s["is_primary"] == true).map(|s| {
                format!(
                    "{}:{}:{}",
                    s["file_name"].as_str().unwrap_or("?"),
                    s["line_start"],
                    s["column_start"]
                )
            });
            let labels = spans
                .iter()
                .filter_map(|s| s["label"].as_str().map(str::to_owned))
                .collect();
            let diagnostic = Diagnostic {
                code: message["code"]["code"].as_str().map(str::to_owned),
                message: text.to_owned(),
                place,
                labels,
                rendered: rendered.to_owned(),
            };
            match message["level"].as_str() {
                Some("error") => d.errors.push(diagnostic),
                Some("warning") => d.warnings.push(diagnostic),
                _ => {}
            }
        }
        d
    }
}

/// A failing test, as libtest's "failures:" section tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFailure {
    pub name: String,
    /// Where it panicked: "09-fan-out/tests/fan_out.rs:82:5".
    pub place: Option<String>,
    /// The panic message, its lines joined.
    pub message: String,
}

impl TestFailure {
    /// "test a_b failed at tests/x.rs:3:5: assertion failed: left: 1; right: 2"
    pub fn one_line(&self) -> String {
        let at = self
            .place
            .as_ref()
            .map(|p| format!(" at {p}"))
            .unwrap_or_default();
        if self.message.is_empty() {
            format!("test {} failed{at}.", self.name)
        } else {
            format!("test {} failed{at}: {}", self.name, self.message)
        }
    }
}

/// The failing tests of libtest output, with where and why each panicked.
pub fn failures(output: &str) -> Vec<TestFailure> {
    let mut found = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    let mut finish = |current: &mut Option<(String, Vec<&str>)>| {
        if let Some((name, lines)) = current.take() {
            found.push(failure(name, &lines));
        }
    };
    for line in output.lines() {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            finish(&mut current);
            current = Some((name.to_owned(), Vec::new()));
        } else if line == "failures:" || line.starts_with("test result:") {
            finish(&mut current);
        } else if let Some((_, lines)) = &mut current {
            lines.push(line);
        }
    }
    finish(&mut current);
    found
}

fn failure(name: String, lines: &[&str]) -> TestFailure {
    // "thread 'name' (1234) panicked at tests/x.rs:3:5:" then the message, then notes. A
    // test may print several panics: a fake it hands the code that panics on purpose, a
    // task's panic that the code is meant to report. What failed the test is the last
    // panic on the test's own thread (libtest names it after the test), so that one is
    // shown; the last panic of any thread if none is on the test's.
    let panics: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("thread '") && l.contains(" panicked at "))
        .map(|(i, _)| i)
        .collect();
    let own = format!("thread '{name}'");
    let start = panics
        .iter()
        .rev()
        .find(|&&i| lines[i].starts_with(&own))
        .or(panics.last())
        .copied();
    let Some(start) = start else {
        let message = lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        return TestFailure {
            name,
            place: None,
            message,
        };
    };
    let place = lines[start]
        .split(" panicked at ")
        .nth(1)
        .map(|p| p.trim_end_matches(':').to_owned());
    let message: Vec<&str> = lines[start + 1..]
        .iter()
        .map(|l| l.trim())
        .take_while(|l| {
            !l.starts_with("note: ")
                && !l.starts_with("stack backtrace:")
                && !(l.starts_with("thread '") && l.contains(" panicked at "))
        })
        .filter(|l| !l.is_empty())
        .collect();
    TestFailure {
        name,
        place,
        message: message.join("; "),
    }
}

/// Every test the output reports as finished (ok, FAILED or ignored).
fn finished_tests(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test "))
        .filter_map(|rest| rest.rsplit_once(" ... "))
        .filter(|(_, result)| !result.trim().is_empty())
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// Counts `test NAME ... ok` lines and names the `... FAILED` ones.
fn test_results(stdout: &str) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut failed = Vec::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        if let Some(name) = rest.strip_suffix(" ... FAILED") {
            failed.push(name.to_owned());
        } else if rest.ends_with(" ... ok") {
            passed += 1;
        }
    }
    failed.sort();
    (passed, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_libtest_lines() {
        let out = "running 3 tests\ntest a ... ok\ntest b ... FAILED\ntest c ... ignored\n\
                   test result: FAILED. 1 passed; 1 failed\n";
        assert_eq!(test_results(out), (1, vec!["b".to_owned()]));
    }

    fn error(code: Option<&str>) -> Diagnostic {
        Diagnostic {
            code: code.map(str::to_owned),
            message: "future cannot be sent between threads safely".into(),
            place: None,
            labels: Vec::new(),
            rendered: String::new(),
        }
    }

    #[test]
    fn summaries_count_and_agree_in_number() {
        let five = [
            error(Some("E0308")),
            error(None),
            error(None),
            error(None),
            error(None),
        ];
        assert_eq!(error_summary(&five), "5 errors: 1 E0308, 4 without a code");
        assert_eq!(error_summary(&five[..1]), "1 error: E0308");
        assert_eq!(error_summary(&five[1..2]), "1 error without a code");
        assert_eq!(error_summary(&five[1..]), "4 errors without a code");
        let failing = |failed: &[&str], total, crashed: &[&str], unknown| Outcome::Failing {
            failed: failed.iter().map(|s| s.to_string()).collect(),
            total,
            output: String::new(),
            crashed: crashed
                .iter()
                .map(|s| (s.to_string(), "signal 6, SIGABRT".to_owned()))
                .collect(),
            unknown,
        };
        assert_eq!(failing(&["a"], 6, &[], 0).summary(), "1 of 6 tests failing");
        assert_eq!(failing(&["a"], 1, &[], 0).summary(), "1 of 1 test failing");
        assert_eq!(
            failing(&["a", "b"], 10, &["b"], 0).summary(),
            "2 of 10 tests failing (b crashed the test binary)"
        );
        assert_eq!(
            failing(&["a", "b"], 10, &["a", "b"], 3).summary(),
            "2 of 10 tests failing (2 crashed the test binary); 3 tests not run, the count is partial"
        );
        let done = |total, miri| Outcome::Done { total, miri };
        assert_eq!(done(1, false).summary(), "done (1 test passes)");
        assert_eq!(done(6, false).summary(), "done (6 tests pass)");
        assert_eq!(
            done(6, true).summary(),
            "done (6 tests pass, under Miri too)"
        );
    }

    #[test]
    fn reads_why_each_test_failed() {
        let out = "running 2 tests\ntest a ... FAILED\ntest b ... FAILED\n\nfailures:\n\n\
                   ---- a stdout ----\n\nthread 'a' (42) panicked at tests/t.rs:3:5:\n\
                   assertion `left == right` failed: slots\n  left: 1\n right: 2\n\
                   note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\
                   ---- b stdout ----\n\nthread 'b' (43) panicked at tests/t.rs:9:1:\nRefCell already borrowed\n\n\
                   failures:\n    a\n    b\n\ntest result: FAILED. 0 passed; 2 failed\n";
        let found = failures(out);
        assert_eq!(found.len(), 2);
        assert_eq!(
            found[0].one_line(),
            "test a failed at tests/t.rs:3:5: assertion `left == right` failed: slots; left: 1; right: 2"
        );
        assert_eq!(found[1].message, "RefCell already borrowed");
    }

    #[test]
    fn the_panic_that_failed_the_test_comes_first() {
        // A fake that panics on purpose on a task's thread, then on the test's own thread
        // a panic the code under test reported, then the test's own assertion.
        let out = "---- serves stdout ----\n\
                   thread 'tokio-runtime-worker' (7) panicked at tests/t.rs:9:9:\n\
                   the fake backend fails on purpose\n\
                   thread 'serves' (5) panicked at src/lib.rs:20:1:\nreported\n\
                   thread 'serves' (5) panicked at tests/t.rs:30:5:\n\
                   a panicking task must be reported by serve, not swallowed\n\
                   note: run with `RUST_BACKTRACE=1`\n\nfailures:\n    serves\n";
        let found = failures(out);
        assert_eq!(
            found[0].one_line(),
            "test serves failed at tests/t.rs:30:5: a panicking task must be reported by serve, not swallowed"
        );
    }

    #[test]
    fn reads_compiler_messages() {
        let line = r#"{"reason":"compiler-message","message":{"level":"error","message":"mismatched types","code":{"code":"E0308"},"rendered":"error[E0308]: mismatched types\n"}}"#;
        let abort = r#"{"reason":"compiler-message","message":{"level":"error","message":"aborting due to 1 previous error","code":null,"rendered":"error: aborting due to 1 previous error\n"}}"#;
        let d = Diagnostics::parse(&format!("{line}\nnot json\n{abort}\n"));
        assert_eq!(d.errors.len(), 1);
        assert_eq!(d.errors[0].code.as_deref(), Some("E0308"));
        assert!(d.rendered.contains("mismatched types") && d.rendered.contains("aborting"));
    }
}
