//! The room's server, run for real on 127.0.0.1 (port 0) and fed what a hostile or broken
//! client sends: the bad-input corpus (oversized and malformed reports, wrong methods,
//! clients that stop halfway, unknown labs, HTML in names, too many connections), then a
//! bounded soak (thousands of reports; the room's memory must stay bounded). Every
//! request loop is bounded in count and in time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// Eight labs in the day, so a report can be as large as a real one gets.
const SPEC: &str = r#"{"labs":[
  {"number":"01","title":"One","href":"http://127.0.0.1:3000/1.html"},
  {"number":"02","title":"Two","href":"http://127.0.0.1:3000/2.html"},
  {"number":"03","title":"Three","href":"http://127.0.0.1:3000/3.html"},
  {"number":"04","title":"Four","href":"http://127.0.0.1:3000/4.html"},
  {"number":"05","title":"Five","href":"http://127.0.0.1:3000/5.html"},
  {"number":"06","title":"Six","href":"http://127.0.0.1:3000/6.html"},
  {"number":"07","title":"Seven","href":"http://127.0.0.1:3000/7.html"},
  {"number":"08","title":"Eight","href":"http://127.0.0.1:3000/8.html"},
  {"number":"09","title":"Nine, not today","href":"http://127.0.0.1:3000/9.html"}],
 "day":["01","02","03","04","05","06","07","08"],
 "explain":[{"name":"a borrow that must be 'static","page":"Why 'static","href":"http://127.0.0.1:3000/s.html"}],
 "lessons":["Arc","Send"]}"#;

struct Server {
    child: Child,
    addr: SocketAddr,
    /// The server's lifeline: it stops when this closes.
    _stdin: ChildStdin,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(code: Option<&str>) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_labs-room"));
    cmd.args(["--bind", "127.0.0.1", "--port", "0"]);
    if let Some(code) = code {
        cmd.args(["--code", code]);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("labs-room starts");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", SPEC.replace('\n', " ")).unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    // The rest of what it says, read so that it never writes into a full pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    // "The room is open: http://127.0.0.1:PORT/ on this machine …"
    let port: u16 = first
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    Server {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        _stdin: stdin,
    }
}

/// Sends raw bytes and reads the answer (until the server closes, or 10 s).
fn raw(addr: SocketAddr, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn status(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"))
}

fn body(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> String {
    let mut r = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    raw(addr, &r)
}

fn post(addr: SocketAddr, body: &str) -> String {
    request(addr, "POST", "/report", body.as_bytes())
}

fn report(id: &str, name: &str, labs: &str) -> String {
    format!(r#"{{"id":"{id}","name":"{name}","labs":[{labs}]}}"#)
}

#[test]
fn the_bad_input_corpus_gets_clear_4xx_answers_and_loses_nothing() {
    let server = start(None);
    let a = server.addr;
    let good = report("goodgood", "Ana", r#"{"lab":"01","state":"done"}"#);
    assert_eq!(status(&post(a, &good)), 200);

    let big = "x".repeat(20 * 1024);
    let chunked_big = format!(
        "POST /report HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n{:x}\r\n{big}\r\n0\r\n\r\n",
        big.len()
    );
    let many_headers: String = (0..101).map(|i| format!("x-h{i}: 1\r\n")).collect();
    let nested = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    // (what, the request, the status, words of the answer); `<FF>` stands for the byte 0xFF.
    let cases: Vec<(&str, String, u16, &str)> = vec![
        (
            "a body its Content-Length says is 1 MB (refused before it is sent)",
            "POST /report HTTP/1.1\r\nhost: x\r\ncontent-length: 1048576\r\nconnection: close\r\n\r\n".into(),
            413,
            "at most 16384 bytes",
        ),
        ("a chunked body of 20 KB", chunked_big, 413, "at most 16384 bytes"),
        (
            "a 20 KB header",
            format!("GET / HTTP/1.1\r\nhost: x\r\nx-big: {big}\r\n\r\n"),
            431,
            "",
        ),
        (
            "101 headers",
            format!("GET / HTTP/1.1\r\nhost: x\r\n{many_headers}\r\n"),
            431,
            "",
        ),
        ("a request line that is not HTTP", "GARBAGE\r\n\r\n".into(), 400, ""),
        (
            "malformed JSON",
            request_text("POST", "/report", "{\"id\": \"goodgood\", "),
            400,
            "not JSON",
        ),
        (
            "JSON nested 5,000 deep",
            request_text("POST", "/report", &nested),
            400,
            "not JSON",
        ),
        (
            "JSON that is not an object",
            request_text("POST", "/report", "\"hello\""),
            400,
            "not a JSON object",
        ),
        (
            "bytes that are not UTF-8",
            "POST /report HTTP/1.1\r\nhost: x\r\ncontent-length: 8\r\nconnection: close\r\n\r\n{\"id\":<FF>}".into(),
            400,
            "not JSON",
        ),
        (
            "an unknown lab",
            request_text("POST", "/report", &report("goodgood", "Ana", r#"{"lab":"42","state":"done"}"#)),
            422,
            "unknown lab `42`",
        ),
        (
            "a lab number that is a wall of text",
            request_text("POST", "/report", &report("goodgood", "Ana", &format!(r#"{{"lab":"{}","state":"done"}}"#, "9".repeat(5000)))),
            422,
            "unknown lab `99999999`",
        ),
        (
            "an unknown state",
            request_text("POST", "/report", &report("goodgood", "Ana", r#"{"lab":"01","state":"on fire"}"#)),
            422,
            "unknown `state`",
        ),
        (
            "source code as a test name",
            request_text("POST", "/report", &report("goodgood", "Ana", r#"{"lab":"01","state":"failing","tests":["let x = secret();"]}"#)),
            422,
            "`tests`",
        ),
        (
            "a path as an error code",
            request_text("POST", "/report", &report("goodgood", "Ana", r#"{"lab":"01","state":"compile","codes":["/home/ana/labs/src/lib.rs"]}"#)),
            422,
            "`codes`",
        ),
        (
            "a name of 41 characters",
            request_text("POST", "/report", &report("goodgood", &"n".repeat(41), "")),
            422,
            "longer than 40",
        ),
        (
            "a name with a control character",
            request_text("POST", "/report", &report("goodgood", "Ana\\u001b[31m", "")),
            422,
            "control characters",
        ),
        (
            "no id",
            request_text("POST", "/report", r#"{"name":"Ana","labs":[]}"#),
            422,
            "`id`",
        ),
        (
            "65 labs in one report",
            request_text("POST", "/report", &report("goodgood", "Ana", &vec![r#"{"lab":"01","state":"done"}"#; 65].join(","))),
            422,
            "more than 64 labs",
        ),
        ("GET /report", request_text("GET", "/report", ""), 405, "POSTed"),
        ("POST /", request_text("POST", "/", "{}"), 405, "use GET"),
        ("DELETE /board", request_text("DELETE", "/board", ""), 405, "use GET"),
        ("PUT /api/room", request_text("PUT", "/api/room", "{}"), 405, "use GET"),
        ("an unknown page", request_text("GET", "/../../etc/passwd", ""), 404, "no such page"),
    ];
    for (what, text, want, words) in &cases {
        let bytes = match text.split_once("<FF>") {
            // The byte 0xFF, never valid UTF-8.
            Some((before, after)) => [before.as_bytes(), &[0xff], after.as_bytes()].concat(),
            None => text.clone().into_bytes(),
        };
        let answer = raw(a, &bytes);
        assert_eq!(status(&answer), *want, "{what}: {answer}");
        assert!(body(&answer).contains(words), "{what}: {answer}");
    }
    let wrong_method = request(a, "GET", "/report", b"");
    assert!(
        wrong_method.to_lowercase().contains("allow: post"),
        "{wrong_method}"
    );

    // Nothing of that reached the board; the good report is still there, and the room
    // still answers.
    let state = body(&request(a, "GET", "/api/room", b"")).to_owned();
    assert!(state.contains(r#""name":"Ana""#), "{state}");
    assert_eq!(state.matches(r#""name":"#).count(), 1, "{state}");
    assert!(
        !state.contains("42") && !state.contains("secret"),
        "{state}"
    );
}

fn request_text(method: &str, path: &str, body: &str) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn html_in_a_name_is_shown_as_text() {
    let server = start(None);
    let names = [
        r#"<script>alert(1)</script>"#,
        r#"<img src=x onerror="alert(2)">"#,
    ];
    for (n, name) in names.iter().enumerate() {
        let r = report(
            &format!("htmlhtml{n}"),
            &name.replace('"', "\\\""),
            r#"{"lab":"02","state":"failing","tests":["t"]}"#,
        );
        assert_eq!(status(&post(server.addr, &r)), 200, "{r}");
    }
    let page = request(server.addr, "GET", "/", b"");
    assert_eq!(status(&page), 200);
    for shown in [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;",
    ] {
        assert!(page.contains(shown), "{shown} not in {page}");
    }
    assert!(
        !page.contains("<script>alert") && !page.contains("<img"),
        "{page}"
    );
    // And the page runs no inline script at all.
    assert!(page.contains("content-security-policy: default-src 'none'; script-src 'self'"));
}

#[test]
fn a_room_code_keeps_strays_out() {
    let server = start(Some("4821"));
    let stray = report("strayxyz", "Stray", r#"{"lab":"01","state":"done"}"#);
    let answer = post(server.addr, &stray);
    assert_eq!(status(&answer), 403, "{answer}");
    assert!(body(&answer).contains("wrong room code"), "{answer}");
    let ours =
        r#"{"id":"oursours","name":"Ours","code":"4821","labs":[{"lab":"01","state":"done"}]}"#;
    assert_eq!(status(&post(server.addr, ours)), 200);
    let state = request(server.addr, "GET", "/api/room", b"");
    assert!(
        state.contains("Ours") && !state.contains("Stray"),
        "{state}"
    );
}

/// Clients that stop halfway are cut off by the room's timeouts (5 s), and meanwhile
/// the room answers everyone else.
#[test]
fn clients_that_stop_halfway_are_closed_in_time() {
    let server = start(None);
    let a = server.addr;
    let started = Instant::now();
    // Half a request head, then nothing.
    let mut head = TcpStream::connect(a).unwrap();
    head.write_all(b"POST /report HTTP/1.1\r\nhost: x\r\ncontent-le")
        .unwrap();
    // A whole head, a tenth of the body it promises, then nothing.
    let mut half_body = TcpStream::connect(a).unwrap();
    half_body
        .write_all(b"POST /report HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{\"id\":\"a\"")
        .unwrap();
    // Connected, and silent.
    let mut silent = TcpStream::connect(a).unwrap();

    let good = report("goodgood", "Ana", r#"{"lab":"01","state":"done"}"#);
    assert_eq!(
        status(&post(a, &good)),
        200,
        "answered while three clients stall"
    );

    for (what, stream) in [("half a head", &mut head), ("silent", &mut silent)] {
        stream
            .set_read_timeout(Some(Duration::from_secs(15)))
            .unwrap();
        let mut rest = Vec::new();
        let read = stream.read_to_end(&mut rest);
        assert!(read.is_ok() || rest.is_empty(), "{what}: {read:?}");
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(4) && waited < Duration::from_secs(9),
            "{what}: closed after {waited:?}"
        );
    }
    half_body
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut answer = String::new();
    let _ = half_body.read_to_string(&mut answer);
    assert_eq!(status(&answer), 408, "{answer}");
    assert!(
        body(&answer).contains("did not arrive within 5 s"),
        "{answer}"
    );
    assert!(started.elapsed() < Duration::from_secs(9));
}

/// One client opening connections without end gets a 503 past the cap, and the room
/// serves again once they are gone.
#[cfg(target_os = "linux")] // other systems allow a process 256 open files by default
#[test]
fn a_flood_of_connections_is_capped() {
    let server = start(None);
    let a = server.addr;
    let mut held = Vec::new();
    for _ in 0..256 {
        held.push(TcpStream::connect(a).unwrap());
    }
    // Let the room accept them all before the ones over the cap.
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut refused = 0;
    while Instant::now() < deadline && refused == 0 {
        let mut extra = TcpStream::connect(a).unwrap();
        extra
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let mut answer = String::new();
        let _ = extra.read_to_string(&mut answer);
        if answer.starts_with("HTTP/1.1 503") {
            assert!(answer.contains("too many open connections"), "{answer}");
            refused += 1;
        }
    }
    assert_eq!(refused, 1, "no 503 past 256 open connections");
    drop(held);
    // The room counts them closed once it sees them go.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let answer = request(a, "GET", "/api/room", b"");
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "still refused: {answer}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The room's resident memory, from Linux's /proc.
#[cfg(target_os = "linux")]
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap()
}

/// A report as large as the room accepts: eight labs, eight long test names each.
fn full_report(id: &str, round: usize) -> String {
    let labs: Vec<String> = (1..=8)
        .map(|lab| {
            let tests: Vec<String> = (0..8)
                .map(|t| {
                    format!(
                        "\"{}\"",
                        format!("m{round}::test_{t}_")
                            .repeat(10)
                            .chars()
                            .take(120)
                            .collect::<String>()
                    )
                })
                .collect();
            format!(
                r#"{{"lab":"0{lab}","state":"failing","tests":[{}]}}"#,
                tests.join(",")
            )
        })
        .collect();
    report(id, &format!("Attendee {id}"), &labs.join(","))
}

/// Thousands of the largest reports, from more clients than the room takes: the room
/// stays at its cap of attendees and its memory stays flat (no history is kept).
#[test]
fn a_soak_of_reports_keeps_the_room_bounded() {
    let server = start(None);
    let a = server.addr;
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut sent = 0;
    // Fill the room: 200 attendees (its cap), then 50 more who are refused.
    for n in 0..250 {
        let answer = post(a, &full_report(&format!("attendee{n:03}"), 0));
        let want = if n < 200 { 200 } else { 403 };
        assert_eq!(status(&answer), want, "attendee {n}: {answer}");
        sent += 1;
    }
    assert!(
        body(&post(a, &full_report("newcomer", 0))).contains("the room is full (200 attendees)")
    );
    // Then every attendee reports again and again, each time with other test names. The
    // memory is taken once the room is full and has been rewritten once (the allocator
    // has its working set), and at the end.
    #[cfg(target_os = "linux")]
    let mut before = None;
    let mut round = 1;
    while sent < 4_000 && Instant::now() < deadline {
        let n = sent % 250;
        let answer = post(a, &full_report(&format!("attendee{n:03}"), round));
        assert!(matches!(status(&answer), 200 | 403), "{answer}");
        sent += 1;
        if n == 249 {
            round += 1;
            #[cfg(target_os = "linux")]
            before.get_or_insert(rss_kb(server.child.id()));
        }
    }
    assert!(sent >= 4_000, "only {sent} reports within the time limit");
    #[cfg(target_os = "linux")]
    {
        // 3,500 reports of ~9 KB after `before`: kept, they would be over 30 MB.
        let grown = rss_kb(server.child.id()).saturating_sub(before.unwrap());
        assert!(
            grown < 4 * 1024,
            "the room grew by {grown} KB over the soak"
        );
        eprintln!(
            "soak: {sent} reports, {round} rounds; the room's memory grew by {grown} KB after its first full round"
        );
    }
    let state = body(&request(a, "GET", "/api/room", b"")).to_owned();
    assert_eq!(state.matches(r#""name":"Attendee "#).count(), 200);
}
