//! Runs a crate's tests with cargo and says where it stands: does not compile (with
//! the error codes and rustc's own text), some tests failing (by name), or done.
//! Nothing is stored: every answer comes from running the tests now.

use std::collections::BTreeSet;
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
        /// Error codes such as "E0308", without repeats, sorted.
        codes: Vec<String>,
        /// The message of each error that has no code (rustc gives some errors none,
        /// e.g. "future cannot be sent between threads safely"), without repeats, sorted.
        uncoded: Vec<String>,
        /// How many errors rustc reported.
        errors: usize,
        /// Everything rustc printed, as a learner sees it.
        rendered: String,
    },
    Failing {
        failed: Vec<String>,
        total: usize,
        output: String,
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
    BreaksLesson {
        total: usize,
        breaches: Vec<Breach>,
    },
    Done {
        total: usize,
    },
}

impl Outcome {
    pub fn is_done(&self) -> bool {
        matches!(self, Outcome::Done { .. })
    }

    /// One short line for the board.
    pub fn summary(&self) -> String {
        match self {
            Outcome::DoesNotCompile { codes, errors, .. } if codes.is_empty() => {
                format!("does not compile ({errors} errors)")
            }
            Outcome::DoesNotCompile { codes, errors, .. } => {
                format!("does not compile ({errors} errors: {})", codes.join(", "))
            }
            Outcome::Failing { failed, total, .. } => {
                format!("{} of {total} tests failing", failed.len())
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
            Outcome::Done { total } => format!("done ({total} tests pass)"),
        }
    }
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
    /// target/labs-runner/: generated files (the clippy.toml of a forbid list).
    pub runner_dir: &'a Path,
    /// A test binary still running after this long is stopped: it hangs.
    pub time_limit: Duration,
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
    pub fn evaluate(&self) -> Result<Outcome, String> {
        let build = run(self.command(&["--no-run", "--message-format=json"]))?;
        let stdout = String::from_utf8_lossy(&build.stdout);
        let diagnostics = Diagnostics::parse(&stdout);
        if !build.status.success() {
            if diagnostics.errors == 0 {
                return Err(format!(
                    "cargo failed before compiling {}:\n{}",
                    self.package,
                    String::from_utf8_lossy(&build.stderr)
                ));
            }
            return Ok(Outcome::DoesNotCompile {
                codes: diagnostics.codes.into_iter().collect(),
                uncoded: diagnostics.uncoded.into_iter().collect(),
                errors: diagnostics.errors,
                rendered: diagnostics.rendered,
            });
        }
        let (mut passed, mut failed, mut output, mut crashed) =
            (0, Vec::new(), String::new(), false);
        for binary in TestBinary::from_build(&stdout) {
            let mut cmd = Command::new(&binary.executable);
            cmd.current_dir(&binary.manifest_dir)
                .env("CARGO_MANIFEST_DIR", &binary.manifest_dir)
                .args(["--color", "never"]);
            let ran = run_limited(cmd, self.time_limit)?;
            let (p, f) = test_results(&ran.stdout);
            passed += p;
            // A binary without tests (a lab's unit tests, usually) is not worth a word.
            if !(ran.status == Some(true) && ran.stdout.contains("running 0 tests")) {
                output.push_str(&format!("     Running {}\n", binary.shown));
                output.push_str(&ran.stdout);
                output.push_str(&ran.stderr);
            }
            match ran.status {
                None => {
                    // Which tests never finished: the binary's list minus those reported.
                    let finished = finished_tests(&ran.stdout);
                    let running = binary
                        .list()
                        .into_iter()
                        .filter(|t| !finished.contains(t))
                        .collect();
                    failed.extend(f);
                    return Ok(Outcome::Hung {
                        limit: self.time_limit,
                        binary: binary.shown,
                        running,
                        failed,
                        output,
                    });
                }
                Some(ok) => {
                    crashed |= !ok && f.is_empty();
                    failed.extend(f);
                }
            }
        }
        failed.sort();
        let total = passed + failed.len();
        if !crashed && failed.is_empty() && total > 0 {
            return self.lesson(total);
        }
        if failed.is_empty() {
            // Non-zero exit without a failing test line: a crash, or no tests at all.
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
        })
    }
}

/// One test executable cargo built, from its `compiler-artifact` message.
struct TestBinary {
    executable: PathBuf,
    manifest_dir: PathBuf,
    /// "tests/fan_out.rs", or "unittests src/lib.rs", as cargo shows it.
    shown: String,
}

impl TestBinary {
    /// The test executables of a `cargo test --no-run --message-format=json`, unit tests first.
    fn from_build(json_lines: &str) -> Vec<TestBinary> {
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
struct Ran {
    stdout: String,
    stderr: String,
    status: Option<bool>,
}

/// Runs `cmd` (a test binary: a direct child, which starts no processes of its own) and
/// kills it if it runs longer than `limit`. Portable: std's `Child::kill` is SIGKILL on
/// Unix and TerminateProcess on Windows.
fn run_limited(mut cmd: Command, limit: Duration) -> Result<Ran, String> {
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
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status.success());
        }
        let elapsed = start.elapsed();
        if elapsed >= limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        if !told && elapsed >= Duration::from_secs(10) {
            told = true;
            eprintln!(
                "{}",
                style::dim(&format!(
                    "(the tests are still running after 10 s; they are stopped at {} s)",
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
    })
}

impl Crate<'_> {
    /// Every test passes: is the lesson learned too?
    fn lesson(&self, total: usize) -> Result<Outcome, String> {
        if self.forbid.is_empty() {
            return Ok(Outcome::Done { total });
        }
        let breaches = Lesson {
            workspace: self.workspace,
            package: self.package,
            crate_dir: self.crate_dir,
            target_dir: self.target_dir.as_deref(),
            clippy_dir: self.runner_dir.join("clippy").join(self.package),
            forbid: self.forbid,
        }
        .breaches()?;
        if breaches.is_empty() {
            Ok(Outcome::Done { total })
        } else {
            Ok(Outcome::BreaksLesson { total, breaches })
        }
    }
}

fn run(mut cmd: Command) -> Result<Output, String> {
    cmd.output()
        .map_err(|e| format!("could not run cargo: {e}"))
}

/// What rustc said while building, from cargo's `--message-format=json` lines.
struct Diagnostics {
    codes: BTreeSet<String>,
    uncoded: BTreeSet<String>,
    errors: usize,
    rendered: String,
}

impl Diagnostics {
    fn parse(json_lines: &str) -> Diagnostics {
        let mut d = Diagnostics {
            codes: BTreeSet::new(),
            uncoded: BTreeSet::new(),
            errors: 0,
            rendered: String::new(),
        };
        for line in json_lines.lines() {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if msg["reason"] != "compiler-message" {
                continue;
            }
            let message = &msg["message"];
            let text = message["message"].as_str().unwrap_or("");
            if message["level"] == "error" && !text.starts_with("aborting due to") {
                d.errors += 1;
                match message["code"]["code"].as_str() {
                    Some(code) => d.codes.insert(code.to_owned()),
                    None => d.uncoded.insert(text.to_owned()),
                };
            }
            if let Some(rendered) = message["rendered"].as_str() {
                d.rendered.push_str(rendered);
            }
        }
        d
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

    #[test]
    fn reads_compiler_messages() {
        let line = r#"{"reason":"compiler-message","message":{"level":"error","message":"mismatched types","code":{"code":"E0308"},"rendered":"error[E0308]: mismatched types\n"}}"#;
        let abort = r#"{"reason":"compiler-message","message":{"level":"error","message":"aborting due to 1 previous error","code":null,"rendered":"error: aborting due to 1 previous error\n"}}"#;
        let d = Diagnostics::parse(&format!("{line}\nnot json\n{abort}\n"));
        assert_eq!(d.errors, 1);
        assert_eq!(d.codes.into_iter().collect::<Vec<_>>(), ["E0308"]);
        assert!(d.rendered.contains("mismatched types") && d.rendered.contains("aborting"));
    }
}
