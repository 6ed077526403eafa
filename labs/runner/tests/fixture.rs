//! The runner, run for real on a fixture workspace (tests/fixtures/book): a green lab, a
//! red one, one that does not compile, one whose tests hang (its time limit is 2 s), one
//! whose tests pass while its code keeps what the lab forbids, one that passes through the
//! shortcuts every lab forbids (the default set), and one whose test crashes the test
//! binary; a Miri lab is written by its own test. The fixture has no dependencies, so a
//! cold build takes seconds; every test copies it first, so nothing is written into the
//! source tree.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::{fs, io::Write};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/book")
}

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("labs-runner-fixture")
}

/// Copies a tree, leaving files whose content is already the same untouched (so cargo's
/// fingerprints of the shared copy survive from one test run to the next).
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else if fs::read(&dest).ok() != Some(fs::read(&path).unwrap()) {
            fs::copy(&path, &dest).unwrap();
        }
    }
}

/// A fresh copy of the fixture under target/tmp/, named `name`.
fn fresh_copy(name: &str) -> PathBuf {
    let dir = tmp().join(name);
    let _ = fs::remove_dir_all(&dir);
    copy_dir(&fixture(), &dir);
    dir
}

/// The copy the read-only tests share, kept between runs and brought up to date.
fn shared() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tmp().join("shared");
        copy_dir(&fixture(), &dir);
        dir
    })
}

/// The runner, set up to run `ARGS` on the copy at `root`.
fn runner(root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_labs"));
    cmd.args(args)
        .current_dir(root.join("labs"))
        .env("LABS_DIR", root.join("labs"))
        // A target folder per copy: cargo names a path package's outputs after its name and
        // its path in the workspace, so two copies sharing one would share their builds.
        .env("CARGO_TARGET_DIR", root.join("target"))
        // Neither git repositories above the copy nor the caller's settings apply.
        .env("GIT_CEILING_DIRECTORIES", tmp())
        .env_remove("LABS_TIME_LIMIT")
        .env_remove("NO_COLOR")
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("LABS_ONLY")
        // Plain lines wrap at the terminal's width, else COLUMNS: wide enough that the
        // tests see each finding whole, but where they test the wrapping.
        .env("COLUMNS", "1000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// `cargo labs ARGS` on the copy at `root`, with `input` on stdin.
fn labs_in(root: &Path, args: &[&str], input: Option<&str>) -> (Output, String) {
    run(runner(root, args), input)
}

fn run(mut cmd: Command, input: Option<&str>) -> (Output, String) {
    let mut child = cmd.spawn().expect("the runner starts");
    let mut stdin = child.stdin.take().unwrap();
    if let Some(text) = input {
        stdin.write_all(text.as_bytes()).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // rustc and panics name files with `\` on Windows.
    (out, text.replace('\\', "/"))
}

fn labs(args: &[&str]) -> (Output, String) {
    labs_in(shared(), args, None)
}

#[test]
fn the_board_shows_every_kind_of_lab() {
    let (out, text) = labs(&["--plain"]);
    assert!(out.status.success(), "{text}");
    for line in [
        "Lab 01, Green, 5 minutes: done (1 test passes).",
        "Lab 02, Red, 5 minutes: 1 of 2 tests failing.",
        "Lab 03, Does not compile, 5 minutes: does not compile (1 error: E0308).",
        "Lab 04, Hangs, 5 minutes: stopped after 2 s: never_finishes never finished.",
        "Lab 05, Tests pass, lesson broken, 5 minutes: tests pass, but src/lib.rs:2 still uses Arc (and 2 more places).",
        "Lab 06, Shortcuts the default set catches, 5 minutes: tests pass, but elsewhere/hidden.rs:3 still uses unsafe (and 8 more places).",
        "Lab 07, A test that crashes its binary, 5 minutes: 2 of 5 tests failing (aborts crashed the test binary).",
        "1 of 7 labs done.",
        "Next: lab 02, Red.",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    // Plain: no colour codes, no drawing characters.
    assert!(!text.contains('\x1b') && !text.contains('─'), "{text}");
}

#[test]
fn a_green_lab_points_to_its_solution_and_the_next_lab() {
    let (out, text) = labs(&["check", "01"]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("done (1 test passes)"), "{text}");
    assert!(
        text.contains("solution  src/part1/01-green-solution.md"),
        "{text}"
    );
    assert!(text.contains("next      lab 02: Red"), "{text}");
}

#[test]
fn a_red_lab_names_its_failing_test_and_why() {
    let (out, text) = labs(&["check", "02", "--plain"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("test the_answer failed at 02-red/tests/red.rs:3:5: assertion `left == right` failed: the answer is 42; left: 41; right: 42"),
        "{text}"
    );
    assert!(text.contains("1 of 2 tests failing"), "{text}");
}

#[test]
fn a_lab_that_does_not_compile_shows_rustc() {
    let (out, text) = labs(&["check", "03"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("error[E0308]: mismatched types"), "{text}");
    assert!(text.contains("does not compile (1 error: E0308)"), "{text}");
}

#[test]
fn a_hanging_lab_is_stopped_at_its_time_limit() {
    let (out, text) = labs(&["check", "04"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("tests/hang.rs was still running after 2 s and was stopped (still running: never_finishes)"),
        "{text}"
    );
    assert!(text.contains("tokio's paused clock"), "{text}");
    assert!(
        text.contains("In this lab: never_finishes loops on purpose."),
        "{text}"
    );
    // The flag overrides the lab's own limit.
    let (_, text) = labs(&["check", "04", "--time-limit", "1"]);
    assert!(text.contains("stopped after 1 s"), "{text}");
}

#[test]
fn green_tests_do_not_make_a_lab_done_while_it_breaks_its_lesson() {
    let (out, text) = labs(&["check", "05", "--plain"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in [
        "src/lib.rs:2 still uses Arc: this lab is about removing it.",
        "src/lib.rs:5 still uses Arc: this lab is about removing it.",
        "src/lib.rs:9 still uses 'static: this lab is about removing it.",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    // The comment and the string on line 1 are not code.
    assert!(!text.contains("src/lib.rs:1 "), "{text}");
}

#[test]
fn every_lab_forbids_the_default_set_in_every_file_it_compiles() {
    // Lab 06 forbids nothing of its own; its tests pass through a thread_local!, a leaked
    // box, an atomic, a lock, mem::forget, and unsafe code in a module outside src/.
    let (out, text) = labs(&["check", "06", "--plain"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in [
        "elsewhere/hidden.rs:3 still uses unsafe: this lab needs no unsafe code.",
        "src/lib.rs:5 still uses AtomicUsize: an atomic is state shared between threads",
        "src/lib.rs:10 still declares static: state in a static or a thread_local!",
        "src/lib.rs:22 still calls Box::leak: a leaked value lives forever",
        "src/lib.rs:30 still uses Mutex: a lock (under any name)",
        "src/lib.rs:31 still calls mem::forget: a forgotten value is never dropped",
        "src/lib.rs:37 still holds a RefCell across .await: a RefCell borrow alive across an .await",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

#[test]
fn a_lab_narrows_the_default_set_only_with_a_reason() {
    let root = fresh_copy("allow");
    let manifest = root.join("labs/06-shortcuts/Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text.clone()
            + "\n[package.metadata.lab.allow]\nunsafe = \"the lab is about unsafe code\"\n\
               atomics = \"the flag is set from another thread\"\n",
    )
    .unwrap();
    let (_, out) = labs_in(&root, &["check", "06", "--plain"], None);
    assert!(!out.contains("still uses unsafe"), "{out}");
    assert!(!out.contains("AtomicUsize"), "{out}");
    assert!(out.contains("src/lib.rs:22 still calls Box::leak"), "{out}");

    fs::write(
        &manifest,
        text + "\n[package.metadata.lab.allow]\nunsafe = \"\"\n",
    )
    .unwrap();
    let (out, said) = labs_in(&root, &["check", "06"], None);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("allow: say why the lab needs `unsafe`"),
        "{said}"
    );
}

#[test]
fn code_that_clippy_compiles_otherwise_hides_nothing() {
    // The Arc of lab 05, shown to the compiler but not to clippy.
    let root = fresh_copy("cfg-clippy");
    fs::write(
        root.join("labs/05-lesson/src/lib.rs"),
        "#[cfg(not(clippy))]\nuse std::sync::Arc as Shared;\n#[cfg(clippy)]\nuse std::rc::Rc as Shared;\n\n\
         pub fn total(xs: &[u32]) -> u32 {\n    let xs: Shared<[u32]> = xs.into();\n    xs.iter().sum()\n}\n\n\
         pub fn name() -> &'static str {\n    \"lesson\"\n}\n",
    )
    .unwrap();
    let (out, text) = labs_in(&root, &["check", "05", "--plain"], None);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("src/lib.rs:1 still uses cfg(clippy): code that clippy compiles differently"),
        "{text}"
    );
}

#[test]
fn the_code_a_starter_gives_stays_as_given() {
    // Lab 01 with a given region (no git in the copy: the starter is .starter/src/).
    let root = fresh_copy("given");
    let lab = root.join("labs/01-green");
    let given = "// ANCHOR: given_table\n/// The table the tests read.\npub const TABLE: [u32; 3] = [1, 2, 3];\n\
                 // ANCHOR_END: given_table\n\npub fn answer() -> u32 {\n    42\n}\n";
    fs::write(lab.join("src/lib.rs"), given).unwrap();
    copy_dir(&lab.join("src"), &lab.join(".starter/src"));
    let (out, text) = labs_in(&root, &["check", "01", "--plain"], None);
    assert!(out.status.success(), "{text}");

    // Comments and layout may change, the code may not.
    let reformatted = given
        .replace("/// The table the tests read.", "// my note")
        .replace("[1, 2, 3]", "[\n    1, 2,\n    3, // three\n]");
    fs::write(lab.join("src/lib.rs"), reformatted).unwrap();
    let (out, text) = labs_in(&root, &["check", "01", "--plain"], None);
    assert!(out.status.success(), "{text}");

    fs::write(
        lab.join("src/lib.rs"),
        given.replace("[1, 2, 3]", "[1, 2, 4]"),
    )
    .unwrap();
    let (out, text) = labs_in(&root, &["check", "01", "--plain"], None);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("src/lib.rs:1 changes the given code `given_table`: this code is given"),
        "{text}"
    );

    fs::write(
        lab.join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
    let (_, text) = labs_in(&root, &["check", "01", "--plain"], None);
    assert!(
        text.contains("changes the given code `given_table`"),
        "{text}"
    );
}

#[test]
fn a_test_that_crashes_its_binary_is_named_and_the_others_still_count() {
    let (out, text) = labs(&["check", "07", "--plain"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("2 of 5 tests failing (aborts crashed the test binary)"),
        "{text}"
    );
    assert!(
        text.contains("test aborts crashed the test binary ("),
        "{text}"
    );
    #[cfg(unix)]
    assert!(text.contains("(signal 6, SIGABRT)"), "{text}");
    assert!(
        text.contains("test fails failed at 07-crash/tests/crash.rs:19:5: assertion `left == right` failed: a plain failure, next to the crash"),
        "{text}"
    );
}

/// The Miri toolchain labs/Cargo.toml names (the real one, not the fixture's).
fn miri_toolchain() -> String {
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("miri-toolchain = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("labs/Cargo.toml names a miri-toolchain")
        .to_owned()
}

/// A lab whose tests pass while its code rebuilds a pointer from an integer, which Miri
/// with `-Zmiri-strict-provenance` reports, and which names `toolchain` as its Miri.
fn miri_lab(name: &str, toolchain: &str) -> PathBuf {
    let root = fresh_copy(name);
    let labs_toml = root.join("labs/Cargo.toml");
    let text = fs::read_to_string(&labs_toml).unwrap();
    fs::write(
        &labs_toml,
        text + &format!(
            "\n[workspace.metadata.labs]\nmiri-toolchain = \"{toolchain}\"\n\
             miri-flags = \"-Zmiri-strict-provenance\"\n"
        ),
    )
    .unwrap();
    let lab = root.join("labs/08-miri");
    fs::create_dir_all(lab.join("src")).unwrap();
    fs::create_dir_all(lab.join("tests")).unwrap();
    fs::write(
        lab.join("Cargo.toml"),
        "[package]\nname = \"miri-lab\"\nversion.workspace = true\nedition.workspace = true\n\
         publish.workspace = true\n\n[package.metadata.lab]\ntitle = \"Unsafe code\"\n\
         page = \"part1/05-lesson.md\"\nminutes = 5\nstarter-fails = []\nmiri = true\n\n\
         [package.metadata.lab.allow]\nunsafe = \"the lab is about unsafe code\"\n",
    )
    .unwrap();
    fs::write(
        lab.join("src/lib.rs"),
        "/// The first number, read through a pointer rebuilt from its address.\n\
         pub fn first(xs: &[u32]) -> u32 {\n    let address = xs.as_ptr() as usize;\n\
         \x20   // SAFETY: none; the provenance of the pointer is lost.\n\
         \x20   unsafe { *(address as *const u32) }\n}\n",
    )
    .unwrap();
    fs::write(
        lab.join("tests/first.rs"),
        "#[test]\nfn reads_the_first_number() {\n    assert_eq!(miri_lab::first(&[7, 8]), 7);\n}\n",
    )
    .unwrap();
    root
}

#[test]
fn a_miri_lab_is_not_done_without_miri() {
    let root = miri_lab("miri-missing", "nightly-1999-01-01");
    let (out, text) = labs_in(&root, &["check", "08"], None);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("tests pass, Miri not run"), "{text}");
    assert!(
        text.contains("rustup toolchain install nightly-1999-01-01 --component miri,rust-src"),
        "{text}"
    );
    assert!(!text.contains("Done"), "{text}");
}

#[test]
fn a_miri_lab_is_done_only_when_miri_agrees() {
    let toolchain = miri_toolchain();
    let installed = Command::new("rustup")
        .args(["run", &toolchain, "cargo", "miri", "--version"])
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        // scripts/test installs Miri and sets LABS_REQUIRE_MIRI: there, this runs.
        assert!(
            std::env::var_os("LABS_REQUIRE_MIRI").is_none(),
            "Miri ({toolchain}) is not installed"
        );
        eprintln!("skipped: Miri ({toolchain}) is not installed");
        return;
    }
    let root = miri_lab("miri-real", &toolchain);
    let (out, text) = labs_in(&root, &["check", "08", "--plain"], None);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("tests pass, but Miri reports an error in reads_the_first_number"),
        "{text}"
    );
    assert!(text.contains("integer-to-pointer cast"), "{text}");

    fs::write(
        root.join("labs/08-miri/src/lib.rs"),
        "pub fn first(xs: &[u32]) -> u32 {\n    // SAFETY: a slice's pointer, read in bounds when it is not empty.\n\
         \x20   unsafe { *xs.as_ptr() }\n}\n",
    )
    .unwrap();
    let (out, text) = labs_in(&root, &["check", "08", "--plain"], None);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("done (1 test passes, under Miri too)"),
        "{text}"
    );
}

#[test]
fn a_crate_the_solution_does_without_is_not_allowed_in() {
    // A learner adds a crate that does the lab's job for them (futures' `join` in lab
    // 02, say): every test passes, and the lab is still not done.
    let root = fresh_copy("new-dependency");
    fs::create_dir_all(root.join("solutions/01-green")).unwrap();
    fs::write(
        root.join("solutions/01-green/Cargo.toml"),
        "[package]\nname = \"green-solution\"\n",
    )
    .unwrap();
    let manifest = root.join("labs/01-green/Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text + "\n[dependencies]\nred = { path = \"../02-red\" }\n",
    )
    .unwrap();
    let (out, text) = labs_in(&root, &["check", "01", "--plain"], None);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Cargo.toml:14 adds `red`: this lab is about writing it yourself"),
        "{text}"
    );
}

#[test]
fn verify_proves_the_solution_and_catches_a_mislabeled_wrong_answer() {
    let (out, text) = labs(&["verify", "05"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in [
        "ok   05-lesson starter is red",
        "ok   05-lesson solution is green",
        "ok   05-lesson solution keeps the lesson",
        "no Arc, no 'static, no Send, nothing of the default set",
        "ok   05-lesson wrong/arc_kept.rs is red",
        "FAIL 05-lesson wrong/mislabeled.rs is red",
        "expected the tests to pass and the lesson to break on exactly [Arc], got: tests pass, but src/lib.rs:7 still uses 'static",
        "verify: 7 checks, 1 failed",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

#[test]
fn hints_come_one_at_a_time() {
    let root = fresh_copy("hints");
    let (_, text) = labs_in(&root, &["hint", "02"], None);
    assert!(
        text.contains("Hint 1 of 1: the number") && text.contains("One more."),
        "{text}"
    );
}

fn git(root: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(root)
        .env("GIT_CEILING_DIRECTORIES", tmp())
        .stdout(Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn reset_restores_the_starter_from_git_and_keeps_a_backup() {
    let root = fresh_copy("reset-git");
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "starter"]);
    let lib = root.join("labs/02-red/src/lib.rs");
    let starter = fs::read_to_string(&lib).unwrap();
    fs::write(&lib, "pub fn answer() -> u32 { 42 }\n").unwrap();

    // Asked, and answered no: nothing changes.
    let (_, text) = labs_in(&root, &["reset", "02"], Some("n\n"));
    assert!(text.contains("Nothing changed."), "{text}");
    assert_eq!(
        fs::read_to_string(&lib).unwrap(),
        "pub fn answer() -> u32 { 42 }\n"
    );

    let (out, text) = labs_in(&root, &["reset", "02", "--yes"], None);
    assert!(out.status.success(), "{text}");
    assert_eq!(fs::read_to_string(&lib).unwrap(), starter);
    let backups: Vec<PathBuf> = fs::read_dir(root.join("labs/02-red/backup"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(backups.len(), 1, "{text}");
    assert_eq!(
        fs::read_to_string(backups[0].join("src/lib.rs")).unwrap(),
        "pub fn answer() -> u32 { 42 }\n"
    );
    assert!(text.contains("labs/02-red/backup/"), "{text}");

    let (_, text) = labs_in(&root, &["reset", "02", "--yes"], None);
    assert!(text.contains("already its starter"), "{text}");
}

#[test]
fn reset_without_git_uses_the_pristine_copy() {
    let root = fresh_copy("reset-copy");
    let lab = root.join("labs/02-red");
    // No git here (GIT_CEILING_DIRECTORIES stops the search), and no copy yet.
    let (out, text) = labs_in(&root, &["reset", "02", "--yes"], None);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains(".starter/src/"), "{text}");

    copy_dir(&lab.join("src"), &lab.join(".starter/src"));
    fs::write(lab.join("src/lib.rs"), "// mine\n").unwrap();
    fs::write(lab.join("src/extra.rs"), "// also mine\n").unwrap();
    let (out, text) = labs_in(&root, &["reset", "02", "--yes"], None);
    assert!(out.status.success(), "{text}");
    assert_eq!(
        fs::read_to_string(lab.join("src/lib.rs")).unwrap(),
        fs::read_to_string(lab.join(".starter/src/lib.rs")).unwrap()
    );
    assert!(!lab.join("src/extra.rs").exists(), "{text}");
}

#[test]
fn help_prints_the_usage_and_runs_nothing() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["watch", "--help"],
        &["check", "02", "--help"],
    ] {
        let (out, text) = labs(args);
        assert!(out.status.success(), "{args:?}: {text}");
        assert!(text.starts_with("usage: cargo labs"), "{args:?}: {text}");
        // No board, no test run, no watching: the usage alone.
        assert!(
            !text.contains("labs done") && !text.contains("Watching") && !text.contains("Lab 02"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn only_chooses_the_labs_of_the_day() {
    let (out, text) = labs(&["--only", "02,04", "--plain"]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("The day: 02,04, labs 02 and 04"), "{text}");
    assert!(
        text.contains("Lab 02, Red, 5 minutes: 1 of 2 tests failing."),
        "{text}"
    );
    assert!(text.contains("Lab 04, Hangs, 5 minutes:"), "{text}");
    for other in ["Lab 01,", "Lab 03,", "Lab 05,", "Lab 06,", "Lab 07,"] {
        assert!(!text.contains(other), "{other} is not of the day:\n{text}");
    }
    assert!(text.contains("0 of 2 labs of the day done."), "{text}");
    assert!(text.contains("Next: lab 02, Red."), "{text}");

    // A green lab's "Next" is the day's next lab, not the next folder.
    let (out, text) = labs(&["check", "01", "--only=01,04", "--plain"]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Next: lab 04: Hangs"), "{text}");
    let (_, text) = labs(&["check", "01", "--only", "01", "--plain"]);
    assert!(
        text.contains("Next: that was the last lab of the day (lab 01)"),
        "{text}"
    );

    let (out, text) = labs(&["--only", "half-day"]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("no day called `half-day`"), "{text}");
}

/// A copy whose labs/Cargo.toml names the day `demo` of its labs/schedules.toml: labs 01
/// and 03, with their walkthroughs.
fn scheduled_copy(name: &str) -> PathBuf {
    let root = fresh_copy(name);
    let manifest = root.join("labs/Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text + "\n[workspace.metadata.labs]\nschedule = \"demo\"\n",
    )
    .unwrap();
    fs::write(
        root.join("labs/schedules.toml"),
        "[demo]\ntitle = \"A demo day\"\nstart = \"09:00\"\n\n\
         [[demo.slot]]\ntitle = \"Arrival\"\nminutes = 10\n\n\
         [[demo.slot]]\ntitle = \"One\"\npages = [\"part1/01-green.md\", \"part1/01-green-solution.md\"]\n\n\
         [[demo.slot]]\nbreak = 10\n\n\
         [[demo.slot]]\ntitle = \"Three\"\npages = [\"part1/03-broken.md\", \"part1/03-broken-solution.md\"]\n",
    )
    .unwrap();
    root
}

#[test]
fn a_schedule_in_cargo_toml_chooses_the_day() {
    let root = scheduled_copy("schedule");
    let (out, text) = labs_in(&root, &["--plain"], None);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("The day: A demo day (demo), labs 01 and 03"),
        "{text}"
    );
    assert!(text.contains("Lab 01, Green"), "{text}");
    assert!(text.contains("Lab 03, Does not compile"), "{text}");
    assert!(!text.contains("Lab 02,"), "{text}");
    assert!(text.contains("1 of 2 labs of the day done."), "{text}");
    assert!(text.contains("Next: lab 03, Does not compile."), "{text}");

    let (_, text) = labs_in(&root, &["check", "01", "--plain"], None);
    assert!(text.contains("Next: lab 03: Does not compile"), "{text}");

    // --only all, or LABS_ONLY, override it for one command.
    let (_, text) = labs_in(&root, &["--only", "all", "--plain"], None);
    assert!(
        text.contains("Lab 02, Red") && text.contains("1 of 7 labs done."),
        "{text}"
    );
    let mut cmd = runner(&root, &["--plain"]);
    cmd.env("LABS_ONLY", "02");
    let (_, text) = run(cmd, None);
    assert!(
        text.contains("The day: 02, lab 02") && text.contains("0 of 1 lab of the day done."),
        "{text}"
    );
}

#[test]
fn plain_keeps_rustcs_excerpt_and_wraps_at_the_terminals_width() {
    let mut cmd = runner(shared(), &["check", "03", "--plain"]);
    cmd.env("COLUMNS", "40");
    let (out, text) = run(cmd, None);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // The finding, wrapped at 40 columns, then rustc's excerpt with its markers.
    assert!(
        text.contains("03-broken/src/lib.rs:2:5: error[E0308]:\n  mismatched types (expected `u32`,\n  found `&str`)"),
        "{text}"
    );
    assert!(text.contains("2 |     \"42\""), "{text}");
    assert!(text.contains("^^^^ expected `u32`, found `&str`"), "{text}");
    assert!(
        text.contains("Lab 03, Does not compile, 5 minutes:\n  does not compile (1 error: E0308)."),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "{text}");
    // Every line but rustc's excerpt fits.
    for line in text.lines() {
        let excerpt = line.contains(" | ")
            || line.trim_start().starts_with('|')
            || line.trim_start().starts_with("-->");
        assert!(
            excerpt || line.chars().count() <= 40,
            "longer than 40: {line:?}\n{text}"
        );
    }
}

/// What a running `cargo labs watch` has printed so far, read on a thread of its own.
struct Watching {
    child: std::process::Child,
    seen: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Watching {
    fn start(root: &Path, args: &[&str]) -> Watching {
        let mut child = runner(root, args).spawn().expect("watch starts");
        let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        for pipe in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let seen = std::sync::Arc::clone(&seen);
            std::thread::spawn(move || {
                let mut pipe = pipe;
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    seen.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        Watching { child, seen }
    }

    fn text(&self) -> String {
        self.seen.lock().unwrap().replace('\\', "/")
    }

    /// Waits (60 s at most) until the output contains `what`, after `from` bytes of it.
    fn wait_for(&self, what: &str, from: usize) -> usize {
        let start = std::time::Instant::now();
        loop {
            let text = self.text();
            if let Some(at) = text[from.min(text.len())..].find(what) {
                return from + at + what.len();
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(60),
                "watch never printed {what:?}:\n{text}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

use std::io::Read;

#[test]
fn watch_keeps_a_green_result_on_screen_until_the_next_save_or_enter() {
    let root = fresh_copy("watch");
    let mut watch = Watching::start(&root, &["watch", "--poll", "--plain", "--only", "02,03"]);
    let at = watch.wait_for("Watching labs/ for changes to lab 02", 0);

    // The learner fixes lab 02: it turns green, and what comes next stays on screen.
    fs::write(
        root.join("labs/02-red/src/lib.rs"),
        "pub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
    let at = watch.wait_for("Done: lab 02 is green.", at);
    let at = watch.wait_for("Next: lab 03: Does not compile", at);
    let at = watch.wait_for("Save a file (or press Enter) to go on to lab 03", at);
    // Lab 03 builds in a second; nothing of it comes while the result is on screen.
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(
        !watch.text()[at..].contains("Lab 03"),
        "watch went on by itself:\n{}",
        watch.text()
    );

    // Enter goes on to the next lab of the day.
    let stdin = watch.child.stdin.as_mut().unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
    let at = watch.wait_for("Lab 03, Does not compile, 5 minutes: does not compile", at);
    watch.wait_for("Watching labs/ for changes to lab 03", at);
}

#[test]
fn in_the_offline_kit_the_book_explains_from_its_rendered_pages() {
    // The kit has no src/, only the rendered book in book/html/.
    let root = fresh_copy("kit-explain");
    fs::remove_dir_all(root.join("src")).unwrap();
    let html = root.join("book/html");
    fs::create_dir_all(html.join("part2")).unwrap();
    fs::create_dir_all(html.join("appendix")).unwrap();
    let heading = |level: u8, id: &str, text: &str| {
        format!("<h{level} id=\"{id}\"><a class=\"header\" href=\"#{id}\">{text}</a></h{level}>\n")
    };
    fs::write(
        html.join("part2/06-static.html"),
        heading(1, "why-spawn-needs-static", "Why spawn needs &#39;static")
            + &heading(
                2,
                "what-the-compiler-says",
                "What the <code>compiler</code> says",
            ),
    )
    .unwrap();
    fs::write(
        html.join("appendix/faq.html"),
        heading(1, "when-you-get-stuck", "When you get stuck")
            + &heading(
                2,
                "borrowed-entry",
                "&quot;borrowed value does not live long enough&quot; or E0373 when spawning",
            ),
    )
    .unwrap();
    // Lab 03 now fails with E0597, which the book explains.
    fs::write(
        root.join("labs/03-broken/src/lib.rs"),
        "pub fn answer() -> u32 {\n    let r;\n    {\n        let x = 42;\n        r = &x;\n    }\n    *r\n}\n",
    )
    .unwrap();
    let (out, text) = labs_in(&root, &["check", "03", "--plain"], None);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let book = html.display().to_string().replace('\\', "/");
    for place in [
        format!(
            "Why spawn needs 'static, section \"What the compiler says\": {book}/part2/06-static.html#what-the-compiler-says"
        ),
        format!("When you get stuck: {book}/appendix/faq.html#borrowed-entry"),
    ] {
        assert!(text.contains(&place), "missing {place:?} in:\n{text}");
    }
    assert!(!text.contains("src/part"), "{text}");
}
