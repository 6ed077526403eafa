//! The room board end to end: `cargo labs room` on 127.0.0.1 (port 0) and five attendees,
//! each the real runner on its own copy of the fixture workspace (tests/fixtures/book),
//! with its labs in other states; the board checked through its JSON and, where Chromium
//! is installed, on the page itself (scripts/check-book/room.mjs: grid, counts, a live
//! update without a reload, a name with HTML in it); what a report carries (a listener
//! of our own reads it); and a room that is unreachable, which must not slow or break a
//! command.
//!
//! Chromium, node and playwright-core are found where scripts/test installs them; without
//! them the page check is skipped with a line saying so, unless LABS_REQUIRE_CHROMIUM=1
//! (scripts/test sets it).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use std::{fs, thread};

use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/book")
}

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("labs-runner-room")
}

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

/// A copy of the fixture under target/tmp/, its src/ folders as committed, its target/
/// (builds, and the runner's room.json) kept from the last run but for room.json.
fn copy(name: &str) -> PathBuf {
    let dir = tmp().join(name);
    let labs = dir.join("labs");
    if labs.exists() {
        for entry in fs::read_dir(&labs).unwrap() {
            let lab = entry.unwrap().path();
            let _ = fs::remove_dir_all(lab.join("src"));
            let _ = fs::remove_dir_all(lab.join(".starter"));
        }
    }
    copy_dir(&fixture(), &dir);
    let _ = fs::remove_file(dir.join("target/labs-runner/room.json"));
    dir
}

/// The runner on the copy at `root`, as an attendee runs it.
fn runner(root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_labs"));
    cmd.args(args)
        .current_dir(root.join("labs"))
        .env("LABS_DIR", root.join("labs"))
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env("GIT_CEILING_DIRECTORIES", tmp())
        .env_remove("LABS_TIME_LIMIT")
        .env_remove("NO_COLOR")
        .env_remove("CARGO_MANIFEST_DIR")
        .stdin(Stdio::null());
    cmd
}

fn run(root: &Path, args: &[&str]) -> (Output, String) {
    let out = runner(root, args).output().expect("the runner starts");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out, text)
}

/// The target folder this test was built in: the room's server builds there once.
fn own_target() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_labs"));
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// `cargo labs room`, until dropped.
struct Room {
    child: Child,
    port: u16,
    _out: thread::JoinHandle<()>,
}

impl Drop for Room {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_room(root: &Path, args: &[&str]) -> Room {
    let mut all = vec!["room", "--bind", "127.0.0.1", "--port", "0"];
    all.extend(args);
    let mut child = runner(root, &all)
        .env("CARGO_TARGET_DIR", own_target())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let out: ChildStdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                let _ = tx.send(rest.split('/').next().unwrap_or("").to_owned());
            }
        }
    });
    // A cold build of the server (hyper, tokio) takes minutes on a busy machine.
    let port = rx
        .recv_timeout(Duration::from_secs(900))
        .expect("the room opens")
        .parse()
        .unwrap();
    Room {
        child,
        port,
        _out: reader,
    }
}

/// GET on 127.0.0.1, the answer's body.
fn get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{path}: {answer}");
    answer.split_once("\r\n\r\n").unwrap().1.to_owned()
}

fn room_state(port: u16) -> Value {
    serde_json::from_str(&get(port, "/api/room")).unwrap()
}

/// Each attendee's cells, by name: {"Ana": {"01": "done", …}}, "failing: the_answer", …
fn cells(state: &Value) -> Vec<(String, Vec<String>)> {
    state["attendees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let cells = a["cells"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    let mut words = vec![c["state"].as_str().unwrap().to_owned()];
                    for key in ["tests", "codes", "lesson"] {
                        for v in c[key].as_array().into_iter().flatten() {
                            words.push(v.as_str().unwrap().to_owned());
                        }
                    }
                    format!("{} {}", c["lab"].as_str().unwrap(), words.join(" "))
                })
                .collect();
            (a["name"].as_str().unwrap().to_owned(), cells)
        })
        .collect()
}

const HTML_NAME: &str = r#"<img src=x onerror="alert(1)">"#;

fn fix_lab_02(root: &Path) {
    fs::write(
        root.join("labs/02-red/src/lib.rs"),
        "pub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
}

fn chromium_tools() -> Option<(PathBuf, String)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/check-book/room.mjs");
    let modules = script
        .with_file_name("node_modules")
        .join("playwright-core");
    let chromium = std::env::var("CHROMIUM_PATH").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let node = Command::new("node").arg("--version").output();
    let missing = [
        (node.is_err(), "node"),
        (
            !modules.is_dir(),
            "scripts/check-book/node_modules (npm ci)",
        ),
        (!Path::new(&chromium).exists(), "Chromium"),
    ]
    .iter()
    .filter(|(gone, _)| *gone)
    .map(|(_, what)| *what)
    .collect::<Vec<_>>();
    if missing.is_empty() {
        return Some((script, chromium));
    }
    let why = format!("the room's page check needs {}", missing.join(", "));
    assert!(
        std::env::var_os("LABS_REQUIRE_CHROMIUM").is_none(),
        "{why} (LABS_REQUIRE_CHROMIUM is set)"
    );
    eprintln!("skipped: {why}");
    None
}

#[test]
fn five_attendees_fill_the_room_and_the_page_follows_them_live() {
    let instructor = copy("instructor");
    let room = start_room(&instructor, &["--only", "01,02,03,05"]);
    let url = format!("http://127.0.0.1:{}", room.port);

    // Five attendees, at once, each on a copy of the labs in a state of its own.
    type Steps = fn(&Path) -> Vec<Vec<&'static str>>;
    let attendees: [(&str, Steps); 5] = [
        ("Ana", |_| vec![vec!["check", "01"], vec!["check", "02"]]),
        ("Ben", |root| {
            fix_lab_02(root);
            vec![vec!["check", "02"], vec!["check", "03"]]
        }),
        (HTML_NAME, |_| {
            vec![vec!["check", "02"], vec!["check", "03"]]
        }),
        ("Dee", |root| {
            // A pristine starter next to the lab (as in the offline kit): lab 02 untouched
            // is "not started", whatever its tests say.
            copy_dir(
                &root.join("labs/02-red/src"),
                &root.join("labs/02-red/.starter/src"),
            );
            vec![vec!["check", "01"], vec!["check", "02"]]
        }),
        ("Eve", |_| vec![vec!["check", "03"], vec!["check", "05"]]),
    ];
    let roots: Vec<PathBuf> = attendees
        .iter()
        .enumerate()
        .map(|(i, _)| copy(&format!("attendee{i}")))
        .collect();
    thread::scope(|s| {
        for ((name, steps), root) in attendees.iter().zip(&roots) {
            let url = url.clone();
            s.spawn(move || {
                for (n, step) in steps(root).iter().enumerate() {
                    let mut args = step.clone();
                    if n == 0 {
                        args.extend(["--room", url.as_str(), "--name", name]);
                    }
                    let (_, text) = run(root, &args);
                    assert!(!text.contains("room:"), "{name}: {text}");
                }
            });
        }
    });

    let state = room_state(room.port);
    let mut got = cells(&state);
    got.sort();
    let want: Vec<(String, Vec<String>)> = [
        (
            HTML_NAME,
            [
                "01 not-started",
                "02 failing the_answer",
                "03 compile E0308",
                "05 not-started",
            ],
        ),
        (
            "Ana",
            [
                "01 done",
                "02 failing the_answer",
                "03 not-started",
                "05 not-started",
            ],
        ),
        (
            "Ben",
            [
                "01 not-started",
                "02 done",
                "03 compile E0308",
                "05 not-started",
            ],
        ),
        (
            "Dee",
            [
                "01 done",
                "02 not-started",
                "03 not-started",
                "05 not-started",
            ],
        ),
        (
            "Eve",
            [
                "01 not-started",
                "02 not-started",
                "03 compile E0308",
                "05 lesson Arc 'static",
            ],
        ),
    ]
    .iter()
    .map(|(n, c)| (n.to_string(), c.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(got, want, "{state:#}");
    let counts: Vec<String> = state["labs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} {}/{}/{}",
                l["number"].as_str().unwrap(),
                l["done"],
                l["working"],
                l["not_started"]
            )
        })
        .collect();
    assert_eq!(counts, ["01 2/0/3", "02 1/2/2", "03 0/3/2", "05 0/1/4"]);
    let issues: Vec<String> = state["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| format!("{} {}", i["people"], i["what"].as_str().unwrap()))
        .collect();
    assert_eq!(
        issues,
        ["3 lab 03: error E0308", "2 lab 02: test the_answer fails"]
    );

    // The page, in Chromium: the same grid, then Ana's fix arrives without a reload.
    let ana = &roots[0];
    let version = state["version"].as_u64().unwrap();
    match chromium_tools() {
        Some((script, chromium)) => {
            let shot = tmp().join("room.png");
            let mut node = Command::new("node")
                .arg(&script)
                .args([&format!("{url}/"), "Ana", "02", "done"])
                .arg(&shot)
                .env("CHROMIUM_PATH", chromium)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut lines = BufReader::new(node.stdout.take().unwrap()).lines();
            let first = lines.next().expect("the page's board").unwrap();
            let before: Value = serde_json::from_str(&first).unwrap();
            check_page(&before, false);
            fix_lab_02(ana);
            let (out, text) = run(ana, &["check", "02"]);
            assert!(out.status.success() && !text.contains("room:"), "{text}");
            let second = lines.next().expect("the board after the update").unwrap();
            let after: Value = serde_json::from_str(&second).unwrap();
            let status = node.wait().unwrap();
            let mut errors = String::new();
            node.stderr
                .take()
                .unwrap()
                .read_to_string(&mut errors)
                .unwrap();
            assert!(status.success(), "room.mjs: {errors}");
            check_page(&after, true);
        }
        None => {
            // Without a browser, the long poll the page makes: it answers with the change.
            let waiting = thread::spawn(move || get(room.port, &format!("/board?since={version}")));
            thread::sleep(Duration::from_millis(300));
            fix_lab_02(ana);
            run(ana, &["check", "02"]);
            let answer: Value = serde_json::from_str(&waiting.join().unwrap()).unwrap();
            assert!(answer["version"].as_u64().unwrap() > version);
        }
    }
    let after = room_state(room.port);
    assert!(
        cells(&after)
            .iter()
            .any(|(n, c)| n == "Ana" && c[1] == "02 done"),
        "{after:#}"
    );

    // The room stops with the runner that started it.
    let port = room.port;
    drop(room);
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(
            Instant::now() < deadline,
            "the room's server outlived cargo labs room"
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// The page's board, as room.mjs read it: before and after Ana fixed lab 02.
fn check_page(board: &Value, after: bool) {
    let rows = board["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    // Sorted by name; the HTML is text, and the board holds no element it would make.
    assert_eq!(names, [HTML_NAME, "Ana", "Ben", "Dee", "Eve"], "{board:#}");
    assert_eq!(board["images"], 0, "{board:#}");
    assert_eq!(board["scripts"], 1, "only room.js: {board:#}");
    let cell = |row: usize, lab: &str| {
        let c = &rows[row]["cells"][lab];
        format!(
            "{} {}",
            c["state"].as_str().unwrap(),
            c["text"].as_str().unwrap()
        )
    };
    assert_eq!(cell(0, "02"), "failing ✗ the_answer");
    assert_eq!(cell(0, "03"), "compile E0308");
    assert_eq!(cell(2, "02"), "done ✓ done");
    assert_eq!(cell(3, "02"), "not-started ·");
    assert_eq!(cell(4, "05"), "lesson tests pass, keeps Arc, 'static");
    let c02 = &board["counts"]["02"];
    let issues: Vec<String> = board["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}",
                i["people"].as_str().unwrap(),
                i["what"].as_str().unwrap()
            )
        })
        .collect();
    if after {
        assert_eq!(cell(1, "02"), "done ✓ done");
        assert_eq!(
            (c02["done"].as_u64(), c02["working"].as_u64()),
            (Some(2), Some(1))
        );
        // One person left on the_answer: no longer what the room is hitting.
        assert_eq!(issues, ["3 people lab 03: error E0308"]);
        assert_eq!(board["navigations"], 1, "{board:#}");
        assert_eq!(board["live"], "live");
    } else {
        assert_eq!(cell(1, "02"), "failing ✗ the_answer");
        assert_eq!(
            (c02["done"].as_u64(), c02["working"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(
            issues,
            [
                "3 people lab 03: error E0308",
                "2 people lab 02: test the_answer fails"
            ]
        );
        assert!(
            board["issues"][0]["href"]
                .as_str()
                .unwrap()
                .ends_with("/part1/03-broken.html"),
            "{board:#}"
        );
    }
}

/// A listener of our own stands in for the room and keeps what reaches it.
fn capture() -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for stream in listener.incoming().take(20) {
            let Ok(mut stream) = stream else { continue };
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                line.clear();
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
            let _ = tx.send(String::from_utf8(body).unwrap());
        }
    });
    (port, rx)
}

#[test]
fn a_report_carries_status_test_names_and_codes_only() {
    let root = copy("what-travels");
    let (port, reports) = capture();
    let url = format!("http://127.0.0.1:{port}");
    run(&root, &["--room", &url, "--name", "Eve", "check", "02"]);
    run(&root, &["check", "03"]);
    run(&root, &["check", "05"]);
    let bodies: Vec<String> = reports.try_iter().collect();
    assert_eq!(bodies.len(), 3, "{bodies:?}");
    let labs: Vec<Value> = bodies
        .iter()
        .map(|b| serde_json::from_str::<Value>(b).unwrap()["labs"][0].clone())
        .collect();
    assert_eq!(labs[0]["state"], "failing");
    assert_eq!(labs[0]["tests"], serde_json::json!(["the_answer"]));
    assert_eq!(labs[1]["codes"], serde_json::json!(["E0308"]));
    assert_eq!(labs[2]["lesson"], serde_json::json!(["Arc", "'static"]));
    for body in &bodies {
        // What the runner itself printed for these labs has paths (02-red/tests/red.rs:3:5,
        // src/lib.rs:2), the panic's words and the source lines; none of it travels.
        for never in [
            "/",
            ".rs",
            "left: 41",
            "the answer is 42",
            "\"42\"",
            "Shared",
            "mismatched types",
            root.to_str().unwrap(),
        ] {
            assert!(!body.contains(never), "{never:?} in {body}");
        }
        let v: Value = serde_json::from_str(body).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["code", "id", "labs", "name"]);
    }
}

#[test]
fn an_unreachable_room_costs_a_moment_and_one_line() {
    let root = copy("unreachable");
    let (quiet, _) = run(&root, &["check", "01"]);
    let alone = Instant::now();
    let (quiet, quiet_text) = {
        let _ = quiet;
        run(&root, &["check", "01"])
    };
    let alone = alone.elapsed();
    assert!(quiet.status.success(), "{quiet_text}");

    // Nothing listens: refused at once.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    // Listens, but never answers (a machine that is there but busy, a wrong port).
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    for port in [port, silent_port] {
        run(
            &root,
            &[
                "--room",
                &format!("http://127.0.0.1:{port}"),
                "--name",
                "Ana",
                "--plain",
            ],
        );
        let started = Instant::now();
        let (out, text) = run(&root, &["check", "01"]);
        let took = started.elapsed();
        assert_eq!(out.status.code(), quiet.status.code(), "{text}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&quiet.stdout),
            "the command's own output changed"
        );
        let said: Vec<&str> = text.lines().filter(|l| l.contains("room:")).collect();
        assert_eq!(said.len(), 1, "{text}");
        assert!(said[0].contains("your labs are not affected"), "{text}");
        // At most FINISH_WAIT (1.5 s) more than without a room, with room for a busy machine.
        assert!(
            took < alone + Duration::from_secs(3),
            "{took:?} with an unreachable room, {alone:?} without"
        );
    }
    drop(silent);
    let (_, text) = run(&root, &["--room", "off"]);
    assert!(text.contains("No longer reporting to a room."), "{text}");
    assert!(!root.join("target/labs-runner/room.json").exists());
}
