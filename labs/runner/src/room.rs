//! The room board: an instructor's page with a row per attendee and a column per lab of
//! the day, filled by the attendees' own runners.
//!
//! Attendees opt in once: `cargo labs --room http://HOST:PORT --name NAME [--code CODE]`,
//! remembered in target/labs-runner/room.json. From then on every lab the board, `check`
//! or `watch` evaluates is reported to the room: its status, the names of failing tests,
//! the compiler's error codes, the names of the book's explanations that match and of
//! what the code keeps that the lab forbids. Never source code, never paths. Reports go
//! from a thread of their own over plain std::net with short timeouts, so a room that is
//! unreachable costs a command at most `FINISH_WAIT` at its end, and one line saying so.
//!
//! The instructor runs `cargo labs room [--port P] [--code CODE]` (with `--only`, the day's labs): it
//! builds the server (labs/room, package labs-room: hyper and tokio, which a learner's
//! runner therefore never builds) and hands it the course's labs and the day's on stdin.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use serde_json::{Value, json};

use crate::labs::{Lab, Paths, html};
use crate::lesson::Forbid;
use crate::outcome::{Evaluation, Outcome, error_kinds};
use crate::{explain, reset, style};

/// The port `cargo labs room` listens on unless `--port` says otherwise.
pub const DEFAULT_PORT: u16 = 7878;
/// How long a connection to the room may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long sending a report or reading the answer may stall.
const IO_TIMEOUT: Duration = Duration::from_millis(1000);
/// The most a command waits for its last report at its end.
const FINISH_WAIT: Duration = Duration::from_millis(1500);
/// Failing tests sent per lab (the board shows the first).
const MAX_TESTS: usize = 5;

/// The room's options on the command line (main.rs hands them over).
#[derive(Default)]
pub struct Args {
    /// `--room URL` (or `off`): join a room, or leave it.
    pub url: Option<String>,
    /// `--name NAME`: how the board shows you.
    pub name: Option<String>,
    /// `--code CODE`: the room's code, for attendees and for `room` alike.
    pub code: Option<String>,
    /// `room --port P`, `room --bind ADDR` (the day's labs: `--only`, as everywhere).
    pub port: Option<String>,
    pub bind: Option<String>,
}

impl Args {
    /// Whether `arg` is one of the room's options (each takes a value).
    pub fn takes(arg: &str) -> bool {
        matches!(arg, "--room" | "--name" | "--code" | "--port" | "--bind")
    }

    pub fn set(&mut self, arg: &str, value: &str) {
        let slot = match arg {
            "--room" => &mut self.url,
            "--name" => &mut self.name,
            "--code" => &mut self.code,
            "--port" => &mut self.port,
            _ => &mut self.bind,
        };
        *slot = Some(value.to_owned());
    }
}

/// What an attendee's runner remembers: target/labs-runner/room.json.
#[derive(Clone, Debug, PartialEq)]
struct Joined {
    url: String,
    name: String,
    code: Option<String>,
    /// Made up once: keeps a renamed attendee on one row.
    id: String,
}

fn config_file(paths: &Paths) -> PathBuf {
    paths.runner_dir().join("room.json")
}

fn load(paths: &Paths) -> Option<Joined> {
    let text = std::fs::read_to_string(config_file(paths)).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let get = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(Joined {
        url: get("url")?,
        name: get("name")?,
        code: get("code"),
        id: get("id")?,
    })
}

fn save(paths: &Paths, joined: &Joined) -> Result<(), String> {
    let file = config_file(paths);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let v = json!({"url": joined.url, "name": joined.name, "code": joined.code, "id": joined.id});
    std::fs::write(&file, format!("{v:#}\n")).map_err(|e| format!("{}: {e}", file.display()))
}

/// An id no one else in the room will have: 32 hex digits from std's randomly seeded
/// hasher, the time and the process.
fn new_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for round in 0..2u8 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u8(round);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.write_u32(std::process::id());
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// "http://10.0.0.5:7878/" -> ("10.0.0.5", 7878). Plain HTTP on the local network; the
/// port defaults to `room`'s.
fn parse_url(url: &str) -> Result<(String, u16), String> {
    let bad = |why: &str| {
        format!("--room `{url}`: {why}; e.g. --room http://192.168.1.20:{DEFAULT_PORT}")
    };
    let lower = url.to_ascii_lowercase();
    let rest = if lower.starts_with("http://") {
        &url[7..]
    } else if lower.starts_with("https://") {
        return Err(bad(
            "the room speaks plain http on the local network, not https",
        ));
    } else if url.contains("://") {
        return Err(bad("not an http address"));
    } else {
        url
    };
    let authority = match rest.split_once('/') {
        Some((a, "")) => a,
        Some(_) => return Err(bad("give only the address and port, no path")),
        None => rest,
    };
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or_else(|| bad("an unclosed ["))?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:".contains(&b));
    if !host_ok {
        return Err(bad("not a host name or address"));
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| bad("not a port number"))?,
    };
    Ok((host.to_owned(), port))
}

/// A name as the room shows it (the room checks it again): 1 to 40 characters, none of
/// them control characters.
fn check_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 40 || name.chars().any(char::is_control) {
        return Err(format!(
            "--name `{name}`: 1 to 40 characters (the room board shows it)"
        ));
    }
    Ok(name.to_owned())
}

/// `--room URL --name NAME [--code CODE]` (join; with `--room` or `--name` alone, change
/// the address or the name) or `--room off`.
/// Called before every command; says what changed.
pub fn join(paths: &Paths, args: &Args) -> Result<(), String> {
    // `--code` alone is `cargo labs room --code C`, the instructor's: not a join.
    if args.url.is_none() && args.name.is_none() {
        return Ok(());
    }
    if args.url.as_deref() == Some("off") {
        let _ = std::fs::remove_file(config_file(paths));
        println!("No longer reporting to a room.");
        return Ok(());
    }
    let known = load(paths);
    let Some(url) = args
        .url
        .clone()
        .or_else(|| known.as_ref().map(|k| k.url.clone()))
    else {
        return Err(format!(
            "--name and --code go with --room: cargo labs --room http://HOST:{DEFAULT_PORT} --name \"Your name\""
        ));
    };
    parse_url(&url)?;
    let name = match (&args.name, &known) {
        (Some(n), _) => check_name(n)?,
        (None, Some(k)) => k.name.clone(),
        (None, None) => {
            return Err(format!(
                "the room shows you by name: cargo labs --room {url} --name \"Your name\""
            ));
        }
    };
    let joined = Joined {
        url: url.trim_end_matches('/').to_owned(),
        name,
        code: args
            .code
            .clone()
            .or_else(|| known.as_ref().and_then(|k| k.code.clone())),
        id: known.map(|k| k.id).unwrap_or_else(new_id),
    };
    save(paths, &joined)?;
    let what =
        "each lab's status, failing test names and error codes (never your code or file paths)";
    if style::plain() {
        println!(
            "Room: reporting to {} as {}: {what}. Stop with cargo labs --room off.",
            joined.url, joined.name
        );
    } else {
        println!(
            "{} reporting to {} as {}.\n      The board, check and watch send {what}.\n      Stop: cargo labs --room off\n",
            style::bold("Room:"),
            joined.url,
            joined.name
        );
    }
    Ok(())
}

enum Message {
    /// Labs just evaluated: (number, what the room gets).
    Labs(Vec<(String, Value)>),
    /// Answer on this channel once everything before it is sent (or has failed).
    Flush(Sender<()>),
}

/// The thread that talks to the room, started by the first report of a command, and the
/// room's address.
static REPORTER: OnceLock<Option<(Sender<Message>, String)>> = OnceLock::new();

/// Reports one evaluated lab to the room, if this copy of the labs joined one. Returns at
/// once: the report travels on a thread of its own.
pub fn report(paths: &Paths, lab: &Lab, evaluation: &Evaluation) {
    let reporter = REPORTER.get_or_init(|| {
        let joined = load(paths)?;
        let url = joined.url.clone();
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("room".into())
            .spawn(move || reporter(joined, rx))
            .ok()?;
        Some((tx, url))
    });
    if let Some((tx, _)) = reporter {
        let _ = tx.send(Message::Labs(vec![(
            lab.number.clone(),
            lab_report(lab, evaluation),
        )]));
    }
}

/// At the end of a command: waits for its last report, `FINISH_WAIT` at most.
pub fn finish() {
    let Some(Some((tx, url))) = REPORTER.get() else {
        return;
    };
    let (done, wait) = mpsc::channel();
    if tx.send(Message::Flush(done)).is_err() {
        return;
    }
    if wait.recv_timeout(FINISH_WAIT).is_err() {
        ENDING.store(true, Ordering::SeqCst);
        eprintln!(
            "{} {url} did not answer within {:.1} s; your labs are not affected, and the room gets your state at your next check.",
            style::yellow("room:"),
            FINISH_WAIT.as_secs_f64()
        );
    }
}

/// Set when a command ends without waiting any longer: what the thread would still say
/// is left unsaid, so a command says at most one line about the room.
static ENDING: AtomicBool = AtomicBool::new(false);

fn say(line: &str) {
    if !ENDING.load(Ordering::SeqCst) {
        eprintln!("{} {line}", style::yellow("room:"));
    }
}

fn reporter(joined: Joined, rx: Receiver<Message>) {
    // What has not reached the room yet, by lab: the latest state of each.
    let mut pending: BTreeMap<String, Value> = BTreeMap::new();
    let mut problem: Option<String> = None;
    while let Ok(first) = rx.recv() {
        let mut flushes = Vec::new();
        let mut fresh = false;
        let mut take = |m: Message| match m {
            Message::Labs(labs) => {
                pending.extend(labs);
                fresh = true;
            }
            Message::Flush(done) => flushes.push(done),
        };
        take(first);
        while let Ok(more) = rx.try_recv() {
            take(more);
        }
        // A room that did not answer is tried again with the next evaluation, not at once.
        if fresh && !pending.is_empty() {
            let body = json!({
                "id": joined.id, "name": joined.name, "code": joined.code,
                "labs": pending.values().collect::<Vec<_>>(),
            });
            match post(&joined.url, &body.to_string()) {
                Ok(()) => {
                    pending.clear();
                    if problem.take().is_some() {
                        say(&format!("reporting to {} again.", joined.url));
                    }
                }
                Err(Failure::Refused(why)) => {
                    // The room read the report and said no: sending it again will not help.
                    pending.clear();
                    let line = format!("{} refused the report: {why}", joined.url);
                    if problem.as_ref() != Some(&line) {
                        say(&line);
                    }
                    problem = Some(line);
                }
                Err(Failure::Unreachable(why)) => {
                    let line = format!(
                        "{} is not reachable ({why}); your labs are not affected, and the room gets your state once it is back.",
                        joined.url
                    );
                    if problem.as_ref() != Some(&line) {
                        say(&line);
                    }
                    problem = Some(line);
                }
            }
        }
        for done in flushes {
            let _ = done.send(());
        }
    }
}

enum Failure {
    /// No answer: not running, wrong address, another network.
    Unreachable(String),
    /// The room answered 4xx/5xx, with its reason.
    Refused(String),
}

/// POSTs one report, with a timeout on every step.
fn post(url: &str, body: &str) -> Result<(), Failure> {
    let (host, port) = parse_url(url).map_err(Failure::Refused)?;
    let addrs: Vec<_> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| Failure::Unreachable(format!("cannot find {host}: {e}")))?
        .take(2)
        .collect();
    let mut last = format!("{host} has no address");
    let mut stream = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = io_words(&e, CONNECT_TIMEOUT),
        }
    }
    let mut stream = stream.ok_or(Failure::Unreachable(last))?;
    let lost = |e: std::io::Error| Failure::Unreachable(io_words(&e, IO_TIMEOUT));
    stream.set_write_timeout(Some(IO_TIMEOUT)).map_err(lost)?;
    stream.set_read_timeout(Some(IO_TIMEOUT)).map_err(lost)?;
    let host_header = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let request = format!(
        "POST /report HTTP/1.1\r\nhost: {host_header}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).map_err(lost)?;
    let mut answer = Vec::new();
    stream
        .take(8 * 1024)
        .read_to_end(&mut answer)
        .map_err(lost)?;
    let answer = String::from_utf8_lossy(&answer);
    let status: u16 = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| Failure::Unreachable("it did not answer in HTTP".into()))?;
    if (200..300).contains(&status) {
        return Ok(());
    }
    let why = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.lines().next().unwrap_or("").to_owned())
        .unwrap_or_default();
    let why: String = why.chars().take(200).collect();
    Err(Failure::Refused(format!("{why} ({status})")))
}

/// An error in a few words; a timeout (WouldBlock on Unix) as such.
fn io_words(e: &std::io::Error, limit: Duration) -> String {
    match e.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
            format!("no answer within {} s", limit.as_secs_f64())
        }
        std::io::ErrorKind::ConnectionRefused => {
            "connection refused: is cargo labs room running there?".into()
        }
        _ => e.to_string(),
    }
}

/// What the room gets about one lab. Only names from fixed vocabularies and the tests'
/// own names; the room checks each again.
fn lab_report(lab: &Lab, evaluation: &Evaluation) -> Value {
    let outcome = &evaluation.outcome;
    let test_name = |t: &&String| {
        !t.is_empty()
            && t.len() <= 120
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
    };
    let tests = |names: &[String]| -> Vec<String> {
        names
            .iter()
            .filter(test_name)
            .take(MAX_TESTS)
            .cloned()
            .collect()
    };
    let (state, tests, codes, lesson): (&str, Vec<String>, Vec<String>, Vec<String>) = match outcome
    {
        Outcome::Done { .. } => ("done", vec![], vec![], vec![]),
        Outcome::DoesNotCompile { errors, .. } => {
            let codes = error_kinds(errors)
                .0
                .into_keys()
                .filter(|c| c.len() == 5 && c.starts_with('E'))
                .take(8)
                .collect();
            ("compile", vec![], codes, vec![])
        }
        Outcome::Failing { failed, .. } => ("failing", tests(failed), vec![], vec![]),
        Outcome::Hung { running, .. } => ("hung", tests(running), vec![], vec![]),
        Outcome::BreaksLesson { breaches, .. } => {
            let mut items: Vec<String> =
                breaches.iter().map(|b| b.item.name().to_owned()).collect();
            items.dedup();
            items.truncate(8);
            ("lesson", vec![], vec![], items)
        }
        Outcome::MiriFailed { test, .. } => (
            "miri",
            tests(&test.iter().cloned().collect::<Vec<_>>()),
            vec![],
            vec![],
        ),
        Outcome::MiriNotRun { .. } => ("miri", vec![], vec![], vec![]),
    };
    let explained: Vec<String> = explain::table()
        .map(|table| {
            explain::matching(&table, lab, outcome)
                .into_iter()
                .map(|e| e.name.clone())
                .take(8)
                .collect()
        })
        .unwrap_or_default();
    json!({
        "lab": lab.number,
        "state": state,
        "started": outcome.is_done() || started(lab),
        "tests": tests,
        "codes": codes,
        "explain": explained,
        "lesson": lesson,
    })
}

/// Whether the lab's src/ differs from its starter (where the starter can be found).
fn started(lab: &Lab) -> bool {
    let Some(starter) = reset::starter_sources(lab) else {
        return true;
    };
    reset::sources(&lab.dir.join("src")).map_or(true, |now| now != starter)
}

/// A page of the book (relative to src/, maybe with `#section`) on `scripts/serve`,
/// which the instructor runs to project the book.
fn href(page: &str) -> String {
    let (page, anchor) = page.split_once('#').unwrap_or((page, ""));
    let anchor = if anchor.is_empty() {
        String::new()
    } else {
        format!("#{anchor}")
    };
    format!("http://127.0.0.1:3000/{}{anchor}", html(page))
}

/// What the server is told about the course: every lab, the day's, the book's
/// explanations of errors, and the names of what a lab may forbid.
fn spec(paths: &Paths, all: &[Lab], day: &[&Lab]) -> Result<Value, String> {
    let table = explain::table()?;
    let explained: Vec<Value> = table
        .entries
        .iter()
        .filter_map(|e| {
            let first = e.see.first()?;
            let place =
                explain::place(&paths.root, first).unwrap_or_else(|| format!("src/{first}"));
            Some(json!({"name": e.name, "page": place, "href": href(first)}))
        })
        .collect();
    let lessons: Vec<&str> = Forbid::ALL
        .iter()
        .chain(&[
            Forbid::NewDependency,
            Forbid::ClippyCfg,
            Forbid::MiriCfg,
            Forbid::GivenCode,
            Forbid::NewApi,
        ])
        .map(|f| f.name())
        .collect();
    Ok(json!({
        "labs": all.iter().map(|l| json!({"number": l.number, "title": l.title, "href": href(&l.page)})).collect::<Vec<_>>(),
        "day": day.iter().map(|l| l.number.as_str()).collect::<Vec<_>>(),
        "explain": explained,
        "lessons": lessons,
    }))
}

/// The labs workspace that has the room's server: this one, or (when the runner is
/// pointed at another labs/ folder with LABS_DIR, as its tests do) the runner's own.
fn server_workspace(paths: &Paths) -> PathBuf {
    if paths.labs.join("room").join("Cargo.toml").is_file() {
        return paths.labs.clone();
    }
    let runner = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    runner.parent().unwrap_or(&runner).to_path_buf()
}

/// Builds labs-room (quick once built) and says where its program is.
fn build_server(workspace: &Path) -> Result<PathBuf, String> {
    let out = crate::outcome::cargo()
        .args([
            "build",
            "--quiet",
            "--package",
            "labs-room",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(workspace)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cargo build -p labs-room: {e}"))?;
    if !out.status.success() {
        return Err("building the room's server (cargo build -p labs-room) failed".into());
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "labs-room")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo build -p labs-room made no program".into())
}

/// `cargo labs room`: serves the room board until Ctrl-C.
pub fn serve(
    paths: &Paths,
    args: &Args,
    all: &[Lab],
    only: Option<&str>,
) -> Result<ExitCode, String> {
    // The day's labs are the room's columns: --only, LABS_ONLY or the schedule (day.rs).
    let day = crate::day::choose(&paths.labs, all, only)?.labs;
    let spec = spec(paths, all, &day)?;
    let workspace = server_workspace(paths);
    println!("Starting the room board (cargo build -p labs-room: a minute or two the first time)…");
    let program = build_server(&workspace)?;
    let mut command = Command::new(program);
    command.arg("--port").arg(match &args.port {
        Some(p) => p.clone(),
        None => DEFAULT_PORT.to_string(),
    });
    if let Some(bind) = &args.bind {
        command.arg("--bind").arg(bind);
    }
    if let Some(code) = &args.code {
        command.arg("--code").arg(code);
    }
    let mut server = command
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting the room's server: {e}"))?;
    // The spec, then nothing: the open pipe is the server's lifeline, so it stops when
    // this process does, however it stops.
    let mut lifeline = server.stdin.take().expect("a piped stdin");
    writeln!(lifeline, "{spec}").map_err(|e| format!("starting the room's server: {e}"))?;
    let status = server
        .wait()
        .map_err(|e| format!("the room's server: {e}"))?;
    drop(lifeline);
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(
            status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(1),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_addresses() {
        assert_eq!(
            parse_url("http://10.0.0.5:7000/").unwrap(),
            ("10.0.0.5".into(), 7000)
        );
        assert_eq!(
            parse_url("HTTP://room.local").unwrap(),
            ("room.local".into(), DEFAULT_PORT)
        );
        assert_eq!(
            parse_url("192.168.1.20:8080").unwrap(),
            ("192.168.1.20".into(), 8080)
        );
        assert_eq!(
            parse_url("http://[fe80::1]:7878").unwrap(),
            ("fe80::1".into(), 7878)
        );
        for bad in [
            "https://room:7878",
            "ftp://room",
            "http://room:7878/board",
            "http://:7878",
            "http://room:0",
            "http://ro om:1",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_the_board_can_show() {
        assert_eq!(check_name("  Zoë <3 ").unwrap(), "Zoë <3");
        assert!(check_name("").is_err());
        assert!(check_name("a\nb").is_err());
        assert!(check_name(&"x".repeat(41)).is_err());
    }

    #[test]
    fn ids_differ() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
