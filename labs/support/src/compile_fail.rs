//! Tests that some code does *not* compile against the lab's library: the learner's
//! `src/lib.rs` is compiled on its own by the toolchain that builds the tests, then a small
//! program that uses it, and the test gets the errors that program has. This is how a test
//! checks that an API refuses a misuse (a handle that must borrow what made it), which no
//! code that compiles can check. For a lab whose library uses only `std`.
//!
//! ```ignore
//! #[test]
//! #[cfg_attr(miri, ignore = "Miri cannot run the compiler")]
//! fn the_handle_borrows_its_owner() {
//!     let errors = lab_support::compile_errors!("my_lab", "use my_lab::Owner; /* … */").unwrap();
//!     assert!(errors.iter().any(|e| e.code.as_deref() == Some("E0505")));
//! }
//! ```
//!
//! It takes two runs of `rustc --emit=metadata` (type and borrow checks, no code
//! generation): a few tenths of a second.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One error of the program that uses the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// Its line in the program (1 is the first).
    pub line: usize,
    /// Its code, `E0505`, if it has one.
    pub code: Option<String>,
    /// rustc's one-line message.
    pub message: String,
}

/// `compile_errors!(crate_name, program)`: the errors of `program` (Rust source, edition
/// 2024) compiled against the calling test crate's library, which it names `crate_name`;
/// `Err` when the library does not compile on its own or the compiler cannot run. Expands
/// to [`compile_errors`] with the calling crate's `CARGO_MANIFEST_DIR`, `CARGO` and
/// `CARGO_TARGET_TMPDIR` (so it works in integration tests).
#[macro_export]
macro_rules! compile_errors {
    ($crate_name:expr, $program:expr) => {
        $crate::compile_fail::compile_errors(
            ::std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
            ::std::path::Path::new(env!("CARGO")),
            ::std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
            $crate_name,
            $program,
        )
    };
}

/// See [`compile_errors!`]: `manifest_dir`'s `src/lib.rs` is compiled as crate
/// `crate_name` by the `rustc` next to `cargo`, in a fresh folder under `scratch`.
pub fn compile_errors(
    manifest_dir: &Path,
    cargo: &Path,
    scratch: &Path,
    crate_name: &str,
    program: &str,
) -> Result<Vec<CompileError>, String> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = scratch.join(format!(
        "compile-fail-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = compile_in(&dir, manifest_dir, cargo, crate_name, program);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn rustc(cargo: &Path) -> PathBuf {
    let beside = cargo.with_file_name(format!("rustc{}", std::env::consts::EXE_SUFFIX));
    if beside.is_file() {
        beside
    } else {
        PathBuf::from("rustc")
    }
}

fn compile_in(
    dir: &Path,
    manifest_dir: &Path,
    cargo: &Path,
    crate_name: &str,
    program: &str,
) -> Result<Vec<CompileError>, String> {
    let rustc = rustc(cargo);
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(&rustc)
            .args([
                "--edition",
                "2024",
                "--crate-type",
                "lib",
                "--emit=metadata",
            ])
            .args(["--cap-lints", "allow", "--error-format=short"])
            .args(args)
            .current_dir(dir)
            .output()
            .map_err(|e| format!("could not run {}: {e}", rustc.display()))
    };
    let lib = manifest_dir.join("src").join("lib.rs");
    let rmeta = dir.join(format!("lib{crate_name}.rmeta"));
    let built = run(&[
        "--crate-name".as_ref(),
        crate_name.as_ref(),
        "-o".as_ref(),
        rmeta.as_os_str(),
        lib.as_os_str(),
    ])?;
    if !built.status.success() {
        return Err(format!(
            "{} does not compile on its own with {}:\n{}",
            lib.display(),
            rustc.display(),
            String::from_utf8_lossy(&built.stderr)
        ));
    }
    let source = dir.join("program.rs");
    std::fs::write(&source, program).map_err(|e| format!("{}: {e}", source.display()))?;
    let extern_arg = format!("{crate_name}={}", rmeta.display());
    let out = dir.join("libprogram.rmeta");
    let checked = run(&[
        "--crate-name".as_ref(),
        "program".as_ref(),
        "--extern".as_ref(),
        extern_arg.as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "program.rs".as_ref(),
    ])?;
    let stderr = String::from_utf8_lossy(&checked.stderr);
    let errors: Vec<CompileError> = stderr.lines().filter_map(parse_error).collect();
    if !checked.status.success() && errors.is_empty() {
        return Err(format!(
            "rustc failed without an error in the program:\n{stderr}"
        ));
    }
    Ok(errors)
}

/// "program.rs:12:10: error[E0505]: cannot move out of …" (rustc's short format).
fn parse_error(line: &str) -> Option<CompileError> {
    let rest = line.strip_prefix("program.rs:")?;
    let (line_no, rest) = rest.split_once(':')?;
    let (_column, rest) = rest.split_once(": ")?;
    let rest = rest.strip_prefix("error")?;
    let (code, message) = match rest.strip_prefix('[') {
        Some(coded) => {
            let (code, message) = coded.split_once("]: ")?;
            (Some(code.to_owned()), message)
        }
        None => (None, rest.strip_prefix(": ")?),
    };
    Some(CompileError {
        line: line_no.parse().ok()?,
        code,
        message: message.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rustc_short_errors() {
        assert_eq!(
            parse_error(
                "program.rs:12:10: error[E0505]: cannot move out of `r` because it is borrowed"
            ),
            Some(CompileError {
                line: 12,
                code: Some("E0505".into()),
                message: "cannot move out of `r` because it is borrowed".into(),
            })
        );
        assert_eq!(
            parse_error("program.rs:3:1: error: expected item").map(|e| e.code),
            Some(None)
        );
        assert_eq!(parse_error("error: aborting due to 1 previous error"), None);
        assert_eq!(parse_error("program.rs:4:5: warning: unused"), None);
    }
}
