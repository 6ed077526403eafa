//! The room's state: who is in it, and where each of them stands on each of the day's
//! labs. Every report is checked here (what may travel, and how much of it), and only
//! the latest state of each cell is kept (no history), so the memory a room uses is
//! bounded by the caps below, whatever clients send.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Rows on the board at most; a new attendee beyond them is refused (403).
pub const MAX_ATTENDEES: usize = 200;
/// A name's length, in characters.
pub const MAX_NAME_CHARS: usize = 40;
/// Labs in one report (the course has fewer).
pub const MAX_LABS_PER_REPORT: usize = 64;
/// Failing tests, error codes, explained errors or lesson items kept per lab.
pub const MAX_ITEMS: usize = 8;
/// A test's name (a Rust path: `module::test_name`), in bytes.
pub const MAX_TEST_NAME: usize = 120;
/// The room code, in bytes.
pub const MAX_CODE: usize = 64;

/// What `cargo labs room` tells the server about the course (one JSON line on stdin).
#[derive(Debug)]
pub struct Spec {
    /// The course's labs, every one (a report about another lab is refused).
    pub labs: Vec<LabInfo>,
    /// The day's labs, by number: the board's columns, in order.
    pub day: Vec<String>,
    /// The errors and panics the book explains (labs/runner/explain.toml), by name.
    pub explain: Vec<Explained>,
    /// The names of what a lab may forbid ("Arc", "tokio::spawn", …).
    pub lessons: Vec<String>,
}

#[derive(Debug)]
pub struct LabInfo {
    pub number: String,
    pub title: String,
    /// The lab's page in the book.
    pub href: String,
}

#[derive(Debug)]
pub struct Explained {
    pub name: String,
    /// Where the book explains it: "Why spawn needs 'static, section …".
    pub page: String,
    pub href: String,
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("the room's spec: {e}"))?;
        let text_of = |v: &Value, key: &str| -> Result<String, String> {
            v.get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("the room's spec: `{key}` missing"))
        };
        let list = |key: &str| -> Vec<Value> {
            v.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let labs = list("labs")
            .iter()
            .map(|l| {
                Ok(LabInfo {
                    number: text_of(l, "number")?,
                    title: text_of(l, "title")?,
                    href: text_of(l, "href")?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let day: Vec<String> = list("day")
            .iter()
            .filter_map(|d| d.as_str().map(str::to_owned))
            .collect();
        if let Some(unknown) = day.iter().find(|d| !labs.iter().any(|l| &l.number == *d)) {
            return Err(format!("the room's spec: day lab `{unknown}` is not a lab"));
        }
        let explain = list("explain")
            .iter()
            .map(|e| {
                Ok(Explained {
                    name: text_of(e, "name")?,
                    page: text_of(e, "page")?,
                    href: text_of(e, "href")?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let lessons = list("lessons")
            .iter()
            .filter_map(|d| d.as_str().map(str::to_owned))
            .collect();
        Ok(Spec {
            labs,
            day,
            explain,
            lessons,
        })
    }

    pub fn lab(&self, number: &str) -> Option<&LabInfo> {
        self.labs.iter().find(|l| l.number == number)
    }
}

/// Where an attendee's lab stands, as their runner saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Done,
    /// Some tests fail.
    Failing,
    /// The tests do not compile.
    Compile,
    /// A test binary ran past its time limit.
    Hung,
    /// Every test passes, but the code keeps what the lab forbids.
    Lesson,
    /// Every test passes, but Miri has not agreed (not run, or it found an error).
    Miri,
}

impl State {
    fn parse(text: &str) -> Option<State> {
        Some(match text {
            "done" => State::Done,
            "failing" => State::Failing,
            "compile" => State::Compile,
            "hung" => State::Hung,
            "lesson" => State::Lesson,
            "miri" => State::Miri,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            State::Done => "done",
            State::Failing => "failing",
            State::Compile => "compile",
            State::Hung => "hung",
            State::Lesson => "lesson",
            State::Miri => "miri",
        }
    }
}

/// One lab of one report: only a status, test names, error codes, and the names of the
/// book's explanations and of lesson items, never code or paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabReport {
    pub state: State,
    /// False while the lab's `src/` is still the starter's.
    pub started: bool,
    /// Failing tests (or, when hung, the tests still running).
    pub tests: Vec<String>,
    /// The compiler's error codes ("E0373").
    pub codes: Vec<String>,
    /// Entries of the spec's `explain` list that match the failure.
    pub explain: Vec<usize>,
    /// What the code keeps that the lab forbids ("Arc").
    pub lesson: Vec<String>,
}

/// A report refused: the HTTP status and why, in words the attendee's runner shows.
#[derive(Debug, PartialEq, Eq)]
pub struct Reject {
    pub status: u16,
    pub message: String,
}

fn reject(status: u16, message: impl Into<String>) -> Reject {
    Reject {
        status,
        message: message.into(),
    }
}

/// A report, checked.
#[derive(Debug)]
pub struct Report {
    pub id: String,
    pub name: String,
    pub labs: Vec<(String, LabReport)>,
}

/// `id`: the attendee's runner makes it up once; it keeps a renamed attendee on one row.
fn valid_id(id: &str) -> bool {
    (8..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A name as the board shows it: trimmed, 1 to 40 characters, no control characters
/// (anything else, HTML included, is shown as text).
pub fn clean_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "the name is longer than {MAX_NAME_CHARS} characters"
        ));
    }
    if name.chars().any(char::is_control) {
        return Err("the name has control characters".into());
    }
    Ok(name.to_owned())
}

fn valid_test(name: &str) -> bool {
    (1..=MAX_TEST_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
}

fn valid_code(code: &str) -> bool {
    let b = code.as_bytes();
    b.len() == 5 && b[0] == b'E' && b[1..].iter().all(u8::is_ascii_digit)
}

/// The strings of a list field (absent: empty), each checked by `ok`; at most `MAX_ITEMS`.
fn strings(lab: &Value, key: &str, ok: impl Fn(&str) -> bool) -> Result<Vec<String>, Reject> {
    let Some(v) = lab.get(key) else {
        return Ok(Vec::new());
    };
    let items = v
        .as_array()
        .ok_or_else(|| reject(422, format!("`{key}` is not a list")))?;
    if items.len() > MAX_ITEMS {
        return Err(reject(
            422,
            format!("`{key}` has more than {MAX_ITEMS} items"),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let text = item
            .as_str()
            .filter(|t| ok(t))
            .ok_or_else(|| reject(422, format!("`{key}` has an item that is not one")))?;
        if !out.iter().any(|o| o == text) {
            out.push(text.to_owned());
        }
    }
    Ok(out)
}

impl Spec {
    /// Checks a report's fields (the room code is checked before, by `Room::receive`).
    pub fn check(&self, v: &Value) -> Result<Report, Reject> {
        let field = |key: &str| v.get(key).and_then(Value::as_str);
        let id = field("id").filter(|id| valid_id(id)).ok_or_else(|| {
            reject(
                422,
                "`id` is missing or not 8 to 64 letters, digits, - or _",
            )
        })?;
        let name = clean_name(field("name").unwrap_or(""))
            .map_err(|e| reject(422, format!("`name`: {e}")))?;
        let labs = v
            .get("labs")
            .and_then(Value::as_array)
            .ok_or_else(|| reject(422, "`labs` is missing or not a list"))?;
        if labs.len() > MAX_LABS_PER_REPORT {
            return Err(reject(
                422,
                format!("more than {MAX_LABS_PER_REPORT} labs in one report"),
            ));
        }
        let mut out = Vec::with_capacity(labs.len());
        for lab in labs {
            let number = lab
                .get("lab")
                .and_then(Value::as_str)
                .ok_or_else(|| reject(422, "a lab without its number (`lab`)"))?;
            if self.lab(number).is_none() {
                let shown: String = number.chars().take(8).collect();
                return Err(reject(422, format!("unknown lab `{shown}`")));
            }
            let state = lab
                .get("state")
                .and_then(Value::as_str)
                .and_then(State::parse)
                .ok_or_else(|| reject(422, format!("lab {number}: unknown `state`")))?;
            let started = match lab.get("started") {
                None => true,
                Some(v) => v.as_bool().ok_or_else(|| {
                    reject(422, format!("lab {number}: `started` is not true or false"))
                })?,
            };
            // Names of the book's explanations and of lesson items are checked against the
            // spec; one this room does not know (another version of the course) is dropped.
            let explain = strings(lab, "explain", |_| true)?
                .iter()
                .filter_map(|name| self.explain.iter().position(|e| &e.name == name))
                .collect();
            let lesson = strings(lab, "lesson", |_| true)?
                .into_iter()
                .filter(|item| self.lessons.contains(item))
                .collect();
            out.push((
                number.to_owned(),
                LabReport {
                    state,
                    started,
                    tests: strings(lab, "tests", valid_test)?,
                    codes: strings(lab, "codes", valid_code)?,
                    explain,
                    lesson,
                },
            ));
        }
        Ok(Report {
            id: id.to_owned(),
            name,
            labs: out,
        })
    }
}

#[derive(Debug)]
pub struct Cell {
    pub report: LabReport,
    /// When this cell last changed (the board says "for 12 min").
    pub since: Instant,
}

#[derive(Debug)]
pub struct Attendee {
    pub name: String,
    pub seen: Instant,
    /// By lab number; only the day's labs.
    pub cells: BTreeMap<String, Cell>,
}

pub struct Room {
    pub spec: Spec,
    code: Option<String>,
    attendees: BTreeMap<String, Attendee>,
    /// Changes whenever the board would show something else.
    version: u64,
}

/// What `Room::receive` did with a report.
#[derive(Debug, PartialEq, Eq)]
pub struct Applied {
    /// The board changed.
    pub changed: bool,
    /// Labs of the course that are not among the day's: not kept.
    pub ignored: Vec<String>,
}

impl Room {
    pub fn new(spec: Spec, code: Option<String>) -> Room {
        Room {
            spec,
            code: code.filter(|c| !c.is_empty()),
            attendees: BTreeMap::new(),
            version: 1,
        }
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    #[cfg(test)]
    pub fn attendees(&self) -> usize {
        self.attendees.len()
    }

    /// A report's body, from the wire: JSON, then the room code, then every field.
    pub fn receive(&mut self, body: &[u8], now: Instant) -> Result<Applied, Reject> {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| reject(400, format!("the report is not JSON ({e})")))?;
        if !v.is_object() {
            return Err(reject(400, "the report is not a JSON object"));
        }
        if let Some(code) = &self.code {
            let given = v.get("code").and_then(Value::as_str).unwrap_or("");
            if given.len() > MAX_CODE || given != code {
                return Err(reject(
                    403,
                    "wrong room code: ask the instructor, then cargo labs --code CODE",
                ));
            }
        }
        let report = self.spec.check(&v)?;
        if !self.attendees.contains_key(&report.id) && self.attendees.len() >= MAX_ATTENDEES {
            return Err(reject(
                403,
                format!("the room is full ({MAX_ATTENDEES} attendees)"),
            ));
        }
        Ok(self.apply(report, now))
    }

    fn apply(&mut self, report: Report, now: Instant) -> Applied {
        let Report { id, name, labs } = report;
        let mut changed = !self.attendees.contains_key(&id);
        let attendee = self.attendees.entry(id).or_insert_with(|| Attendee {
            name: name.clone(),
            seen: now,
            cells: BTreeMap::new(),
        });
        attendee.seen = now;
        if attendee.name != name {
            attendee.name = name;
            changed = true;
        }
        let mut ignored = Vec::new();
        for (number, report) in labs {
            if !self.spec.day.contains(&number) {
                ignored.push(number);
                continue;
            }
            match attendee.cells.get_mut(&number) {
                Some(cell) if cell.report == report => {}
                Some(cell) => {
                    *cell = Cell { report, since: now };
                    changed = true;
                }
                None => {
                    attendee.cells.insert(number, Cell { report, since: now });
                    changed = true;
                }
            }
        }
        if changed {
            self.version += 1;
        }
        Applied { changed, ignored }
    }

    /// What the board shows now.
    pub fn view(&self, now: Instant) -> View<'_> {
        let columns: Vec<&LabInfo> = self
            .spec
            .day
            .iter()
            .filter_map(|n| self.spec.lab(n))
            .collect();
        let mut rows: Vec<Row> = self
            .attendees
            .iter()
            .map(|(id, a)| Row {
                id: id.as_str(),
                name: a.name.as_str(),
                seen: now.saturating_duration_since(a.seen),
                cells: columns
                    .iter()
                    .map(|lab| match a.cells.get(&lab.number) {
                        Some(c) if c.report.state == State::Done => Shown::Done,
                        Some(c) if c.report.started => Shown::Working {
                            report: &c.report,
                            since: now.saturating_duration_since(c.since),
                        },
                        _ => Shown::NotStarted,
                    })
                    .collect(),
            })
            .collect();
        rows.sort_by(|a, b| (a.name.to_lowercase(), a.id).cmp(&(b.name.to_lowercase(), b.id)));
        let counts = (0..columns.len())
            .map(|i| {
                let mut c = Counts::default();
                for row in &rows {
                    match row.cells[i] {
                        Shown::Done => c.done += 1,
                        Shown::Working { .. } => c.working += 1,
                        Shown::NotStarted => c.not_started += 1,
                    }
                }
                c
            })
            .collect();
        let issues = self.issues(&columns, &rows);
        View {
            columns,
            rows,
            counts,
            issues,
        }
    }

    /// What two or more people are stuck on right now, most people first (at most five).
    fn issues(&self, columns: &[&LabInfo], rows: &[Row]) -> Vec<Issue> {
        let mut people: BTreeMap<Key, BTreeSet<&str>> = BTreeMap::new();
        for row in rows {
            for (i, shown) in row.cells.iter().enumerate() {
                let Shown::Working { report, .. } = shown else {
                    continue;
                };
                for key in keys(i, report) {
                    people.entry(key).or_default().insert(row.id);
                }
            }
        }
        let mut ranked: Vec<(Key, usize)> = people
            .into_iter()
            .map(|(k, who)| (k, who.len()))
            .filter(|&(_, n)| n >= 2)
            .collect();
        // Most people first; then the earlier lab, as the key orders them.
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(5)
            .map(|(key, people)| self.describe(columns, key, people))
            .collect()
    }

    fn describe(&self, columns: &[&LabInfo], key: Key, people: usize) -> Issue {
        let lab_page = |i: usize| {
            let lab = columns[i];
            (
                format!("Lab {}: {}", lab.number, lab.title),
                lab.href.clone(),
            )
        };
        let (what, (page, href)) = match key {
            Key::Explained(e) => {
                let e = &self.spec.explain[e];
                (e.name.clone(), (e.page.clone(), e.href.clone()))
            }
            Key::Code(i, code) => (
                format!("lab {}: error {code}", columns[i].number),
                lab_page(i),
            ),
            Key::Uncoded(i) => (
                format!("lab {}: an error without a code", columns[i].number),
                lab_page(i),
            ),
            Key::Test(i, test) => (
                format!("lab {}: test {test} fails", columns[i].number),
                lab_page(i),
            ),
            Key::Hung(i, test) => (
                format!("lab {}: test {test} never finishes", columns[i].number),
                lab_page(i),
            ),
            Key::Lesson(i, item) => (
                format!(
                    "lab {}: tests pass, but the code keeps {item}",
                    columns[i].number
                ),
                lab_page(i),
            ),
            Key::Miri(i) => (
                format!("lab {}: tests pass, Miri has not agreed", columns[i].number),
                lab_page(i),
            ),
        };
        Issue {
            what,
            people,
            page,
            href,
        }
    }
}

/// What a stuck cell counts towards in "what the room is hitting": the book's
/// explanation when there is one, else the error codes or the failing tests.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Explained(usize),
    Code(usize, String),
    Uncoded(usize),
    Test(usize, String),
    Hung(usize, String),
    Lesson(usize, String),
    Miri(usize),
}

fn keys(column: usize, r: &LabReport) -> Vec<Key> {
    if !r.explain.is_empty() && matches!(r.state, State::Compile | State::Failing | State::Hung) {
        return r.explain.iter().map(|&e| Key::Explained(e)).collect();
    }
    match r.state {
        State::Done => Vec::new(),
        State::Compile if r.codes.is_empty() => vec![Key::Uncoded(column)],
        State::Compile => r
            .codes
            .iter()
            .map(|c| Key::Code(column, c.clone()))
            .collect(),
        State::Failing => r
            .tests
            .iter()
            .map(|t| Key::Test(column, t.clone()))
            .collect(),
        State::Hung => r
            .tests
            .iter()
            .map(|t| Key::Hung(column, t.clone()))
            .collect(),
        State::Lesson => r
            .lesson
            .iter()
            .map(|l| Key::Lesson(column, l.clone()))
            .collect(),
        State::Miri => vec![Key::Miri(column)],
    }
}

/// The board at one moment.
pub struct View<'a> {
    pub columns: Vec<&'a LabInfo>,
    /// Sorted by name.
    pub rows: Vec<Row<'a>>,
    /// One per column.
    pub counts: Vec<Counts>,
    pub issues: Vec<Issue>,
}

pub struct Row<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// Since the attendee's last report.
    pub seen: Duration,
    /// One per column.
    pub cells: Vec<Shown<'a>>,
}

pub enum Shown<'a> {
    NotStarted,
    Done,
    Working {
        report: &'a LabReport,
        since: Duration,
    },
}

#[derive(Default, Debug, PartialEq, Eq)]
pub struct Counts {
    pub done: usize,
    pub working: usize,
    pub not_started: usize,
}

#[derive(Debug)]
pub struct Issue {
    pub what: String,
    /// How many attendees have it now.
    pub people: usize,
    /// The page of the book about it.
    pub page: String,
    pub href: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn spec() -> Spec {
        Spec::parse(
            r#"{"labs":[{"number":"01","title":"One","href":"http://127.0.0.1:3000/one.html"},
                        {"number":"02","title":"Two","href":"http://127.0.0.1:3000/two.html"},
                        {"number":"03","title":"Three","href":"http://127.0.0.1:3000/three.html"}],
                "day":["01","02"],
                "explain":[{"name":"a borrow that must be 'static","page":"Why 'static","href":"http://127.0.0.1:3000/static.html#x"}],
                "lessons":["Arc","Send"]}"#,
        )
        .unwrap()
    }

    fn body(id: &str, name: &str, labs: &str) -> Vec<u8> {
        format!(r#"{{"id":"{id}","name":"{name}","labs":[{labs}]}}"#).into_bytes()
    }

    #[test]
    fn a_report_fills_the_days_cells_and_ignores_other_labs() {
        let mut room = Room::new(spec(), None);
        let t = Instant::now();
        let applied = room
            .receive(
                &body(
                    "abcdefgh",
                    "Ana",
                    r#"{"lab":"01","state":"done"},{"lab":"02","state":"failing","tests":["t::a"]},{"lab":"03","state":"done"}"#,
                ),
                t,
            )
            .unwrap();
        assert_eq!(
            applied,
            Applied {
                changed: true,
                ignored: vec!["03".into()]
            }
        );
        let view = room.view(t + Duration::from_secs(125));
        assert_eq!(view.rows.len(), 1);
        assert!(matches!(view.rows[0].cells[0], Shown::Done));
        let Shown::Working { report, since } = &view.rows[0].cells[1] else {
            panic!("lab 02 should be failing");
        };
        assert_eq!(report.tests, ["t::a"]);
        assert_eq!(*since, Duration::from_secs(125));
        assert_eq!(
            view.counts,
            [
                Counts {
                    done: 1,
                    working: 0,
                    not_started: 0
                },
                Counts {
                    done: 0,
                    working: 1,
                    not_started: 0
                }
            ]
        );
    }

    #[test]
    fn the_same_report_again_changes_nothing_and_keeps_since() {
        let mut room = Room::new(spec(), None);
        let t = Instant::now();
        let b = body(
            "abcdefgh",
            "Ana",
            r#"{"lab":"02","state":"compile","codes":["E0308"]}"#,
        );
        room.receive(&b, t).unwrap();
        let v = room.version();
        let again = room.receive(&b, t + Duration::from_secs(60)).unwrap();
        assert!(!again.changed);
        assert_eq!(room.version(), v);
        let view = room.view(t + Duration::from_secs(60));
        let Shown::Working { since, .. } = view.rows[0].cells[1] else {
            panic!()
        };
        assert_eq!(since, Duration::from_secs(60));
    }

    #[test]
    fn an_untouched_starter_is_not_started() {
        let mut room = Room::new(spec(), None);
        let t = Instant::now();
        room.receive(
            &body(
                "abcdefgh",
                "Ana",
                r#"{"lab":"02","state":"failing","started":false,"tests":["a"]}"#,
            ),
            t,
        )
        .unwrap();
        let view = room.view(t);
        assert!(matches!(view.rows[0].cells[1], Shown::NotStarted));
        assert!(matches!(view.rows[0].cells[0], Shown::NotStarted));
    }

    #[test]
    fn bad_fields_are_refused_with_their_reason() {
        let mut room = Room::new(spec(), None);
        let t = Instant::now();
        let cases: [(&[u8], u16, &str); 12] = [
            (b"{", 400, "not JSON"),
            (b"[1,2]", 400, "not a JSON object"),
            (
                b"{\"id\":\"short\",\"name\":\"A\",\"labs\":[]}",
                422,
                "`id`",
            ),
            (&body("abcdefgh", "", "")[..], 422, "the name is empty"),
            (
                &body("abcdefgh", "a\\u0007b", "")[..],
                422,
                "control characters",
            ),
            (
                &body("abcdefgh", &"x".repeat(41), "")[..],
                422,
                "longer than 40",
            ),
            (
                &body("abcdefgh", "A", r#"{"lab":"99","state":"done"}"#)[..],
                422,
                "unknown lab `99`",
            ),
            (
                &body("abcdefgh", "A", r#"{"lab":"01","state":"great"}"#)[..],
                422,
                "unknown `state`",
            ),
            (
                &body(
                    "abcdefgh",
                    "A",
                    r#"{"lab":"01","state":"failing","tests":["fn main() { }"]}"#,
                )[..],
                422,
                "`tests`",
            ),
            (
                &body(
                    "abcdefgh",
                    "A",
                    r#"{"lab":"01","state":"compile","codes":["/home/ana/src/lib.rs"]}"#,
                )[..],
                422,
                "`codes`",
            ),
            (
                &body(
                    "abcdefgh",
                    "A",
                    r#"{"lab":"01","state":"failing","tests":["a","b","c","d","e","f","g","h","i"]}"#,
                )[..],
                422,
                "more than 8",
            ),
            (
                &body(
                    "abcdefgh",
                    "A",
                    r#"{"lab":"01","state":"done","started":"yes"}"#,
                )[..],
                422,
                "`started`",
            ),
        ];
        for (b, status, words) in cases {
            let r = room.receive(b, t).unwrap_err();
            assert_eq!(r.status, status, "{}: {r:?}", String::from_utf8_lossy(b));
            assert!(
                r.message.contains(words),
                "{}: {r:?}",
                String::from_utf8_lossy(b)
            );
        }
        assert_eq!(room.attendees(), 0);
    }

    #[test]
    fn a_room_code_keeps_strays_out() {
        let mut room = Room::new(spec(), Some("4821".into()));
        let t = Instant::now();
        let without = body("abcdefgh", "A", "");
        assert_eq!(room.receive(&without, t).unwrap_err().status, 403);
        let with = br#"{"id":"abcdefgh","name":"A","code":"4821","labs":[]}"#;
        assert!(room.receive(with, t).unwrap().changed);
    }

    #[test]
    fn unknown_explanations_and_lesson_items_are_dropped() {
        let mut room = Room::new(spec(), None);
        let t = Instant::now();
        room.receive(
            &body(
                "abcdefgh",
                "A",
                r#"{"lab":"01","state":"lesson","lesson":["Arc","<b>x</b>"],"explain":["a borrow that must be 'static","nope"]}"#,
            ),
            t,
        )
        .unwrap();
        let view = room.view(t);
        let Shown::Working { report, .. } = view.rows[0].cells[0] else {
            panic!()
        };
        assert_eq!(report.lesson, ["Arc"]);
        assert_eq!(report.explain, [0]);
    }

    #[test]
    fn the_room_is_bounded() {
        let mut room = Room::new(spec(), None);
        let t = Instant::now();
        for n in 0..MAX_ATTENDEES {
            let b = body(
                &format!("attendee{n:04}"),
                "A",
                r#"{"lab":"01","state":"done"}"#,
            );
            assert!(room.receive(&b, t).unwrap().changed);
        }
        let one_more = body("attendee9999", "A", r#"{"lab":"01","state":"done"}"#);
        let refused = room.receive(&one_more, t).unwrap_err();
        assert_eq!(refused.status, 403);
        assert!(refused.message.contains("the room is full"), "{refused:?}");
        assert_eq!(room.attendees(), MAX_ATTENDEES);
        // One already in the room still reports.
        let known = body("attendee0000", "A", r#"{"lab":"01","state":"failing"}"#);
        assert!(room.receive(&known, t).unwrap().changed);
    }

    #[test]
    fn issues_are_what_two_or_more_share_with_the_book_page_first() {
        let mut room = Room::new(spec(), None);
        let t = Instant::now();
        let explained = r#"{"lab":"02","state":"compile","codes":["E0373"],"explain":["a borrow that must be 'static"]}"#;
        room.receive(&body("aaaaaaaa", "A", explained), t).unwrap();
        room.receive(&body("bbbbbbbb", "B", explained), t).unwrap();
        room.receive(&body("cccccccc", "C", explained), t).unwrap();
        let failing = r#"{"lab":"01","state":"failing","tests":["t1"]}"#;
        room.receive(&body("aaaaaaaa", "A", failing), t).unwrap();
        room.receive(&body("dddddddd", "D", failing), t).unwrap();
        // One person alone is not an issue of the room.
        room.receive(
            &body(
                "eeeeeeee",
                "E",
                r#"{"lab":"01","state":"failing","tests":["t2"]}"#,
            ),
            t,
        )
        .unwrap();
        let view = room.view(t);
        let issues: Vec<(&str, usize, &str)> = view
            .issues
            .iter()
            .map(|i| (i.what.as_str(), i.people, i.href.as_str()))
            .collect();
        assert_eq!(
            issues,
            [
                (
                    "a borrow that must be 'static",
                    3,
                    "http://127.0.0.1:3000/static.html#x"
                ),
                ("lab 01: test t1 fails", 2, "http://127.0.0.1:3000/one.html"),
            ]
        );
    }
}
