//! Runs a crate's tests with cargo and says where it stands: does not compile (with
//! the error codes and rustc's own text), some tests failing (by name), or done.
//! Nothing is stored: every answer comes from running the tests now.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::lesson::{Breach, Forbid, Lesson};

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

    /// Builds the tests, then runs them.
    pub fn evaluate(&self) -> Result<Outcome, String> {
        let build = run(self.command(&["--no-run", "--message-format=json"]))?;
        let diagnostics = Diagnostics::parse(&String::from_utf8_lossy(&build.stdout));
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
        let test = run(self.command(&["--no-fail-fast", "--", "--color", "never"]))?;
        let stdout = String::from_utf8_lossy(&test.stdout).into_owned();
        let (passed, failed) = test_results(&stdout);
        let total = passed + failed.len();
        if test.status.success() && failed.is_empty() && total > 0 {
            return self.lesson(total);
        }
        let mut failed = failed;
        if failed.is_empty() {
            // Non-zero exit without a failing test line: a crash, or no tests at all.
            failed.push(if total == 0 {
                "(no tests ran)".into()
            } else {
                "(test binary crashed)".into()
            });
        }
        let output = stdout + &String::from_utf8_lossy(&test.stderr);
        Ok(Outcome::Failing {
            failed,
            total: total.max(1),
            output,
        })
    }
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
