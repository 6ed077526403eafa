//! A lab's lesson, enforced. Once a lab's tests pass, `cargo labs check` still calls it
//! not done while the code the crate compiles keeps something the lab forbids: green
//! tests with an `Arc` still in place, or with the state the lab moves into a task kept
//! in a `thread_local!` instead, did not learn what the lab teaches.
//!
//! Two lists make up what a lab forbids:
//! - the default set, for every lab ([`Forbid::DEFAULT`]): `unsafe`, `static` items and
//!   `thread_local!`, `Box::leak`, `mem::transmute`, `mem::forget`, atomics, and locks
//!   under any name. These are how a test's demands are met without the design the lab
//!   teaches (a value leaked to look `'static`, a counter shared through an atomic, state
//!   hidden in a static). A lab that needs one says so, with the reason, in
//!   `[package.metadata.lab.allow]` (lab 23 is about `unsafe` code; lab 03's waker flag
//!   is set from another thread);
//! - the lab's own `forbid = [...]`: what its lesson removes (`Arc`, `tokio::spawn`,
//!   `'static`, a `Send` bound).
//!
//! The vocabulary:
//! - `"Arc"`: `std::sync::Arc`, also renamed (`use … as Shared`) or behind a type alias;
//! - `"Mutex"`: a lock under any name: std's `Mutex`, `RwLock` and `Condvar`, tokio's
//!   `Mutex`, `RwLock` and `watch` channel, parking_lot's and futures' locks;
//! - `"tokio::spawn"`: `tokio::spawn` and `tokio::task::spawn`;
//! - `"'static"`: the lifetime anywhere in code;
//! - `"Send"`: a `Send` bound, `+ Send`, or any other use of the trait (`?Send` is fine),
//!   and `#[async_trait]` without `(?Send)`, which writes `+ Send` on every future;
//! - `"Sync"`: the trait, anywhere in code;
//! - `"unsafe"`: an `unsafe` block, fn, trait or impl (a `transmute` that stretches a
//!   borrow to `'static`, a wrapper with `unsafe impl Send`, a value in an `UnsafeCell`);
//! - `"static"`: a `static` item, `thread_local!` included;
//! - `"Box::leak"`: `Box::leak`, `Box::into_raw`, `Vec::leak`, `String::leak`;
//! - `"mem::transmute"`: that function; `"mem::forget"`: it and `ManuallyDrop::new`;
//! - `"atomics"`: the types of `std::sync::atomic`.
//!
//! Types and functions are found by clippy's `disallowed-types` and `disallowed-methods`,
//! by what they resolve to, so aliases and renamed imports are caught. The runner writes a
//! clippy.toml with just the forbidden items into target/labs-runner/clippy/ and points
//! `CLIPPY_CONF_DIR` at it; `--force-warn` keeps an `#[allow]` in the learner's code from
//! hiding them, and code that only clippy compiles, or only clippy skips (`cfg(clippy)`),
//! is a finding of its own. Syntax (`'static`, `Send`, `unsafe`, `static`,
//! `thread_local!`) is found by a scan that skips comments, strings and character
//! literals, of every file the compiler read for the library: `src/`, and whatever
//! `#[path]`, `include!` or a build script's output brought in (cargo's dep-info file
//! lists them). Without clippy installed, a plain scan for the names stands in, and says so.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::outcome::cargo;

/// One item of the `forbid` vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Forbid {
    Arc,
    Mutex,
    TokioSpawn,
    Static,
    Send,
    Sync,
    Unsafe,
    StaticItem,
    Leak,
    Transmute,
    Forget,
    Atomics,
    HeldBorrow,
    SystemAlloc,
    Channels,
    /// Not in the `forbid` vocabulary: a crate in the lab's `[dependencies]` that the
    /// solution does without. Every lab is checked for it.
    NewDependency,
    /// Not in the vocabulary either: `cfg(clippy)`, code that clippy (which finds the
    /// forbidden types) compiles differently from the compiler. Checked wherever clippy is.
    ClippyCfg,
    /// Nor this: `cfg(miri)`, code that Miri runs differently from the compiled tests.
    /// Checked in labs with `miri = true`.
    MiriCfg,
    /// Code the starter gives (`// ANCHOR: given…` regions), changed or gone: the tests
    /// rely on it behaving as given. Checked in every lab whose starter has such regions;
    /// a wrong answer may expect it as `given code`.
    GivenCode,
    /// Public API the starter does not have (`fixed-api = true`): a method, a trait impl, a
    /// derive. In an `unsafe` lab, safe code can reach whatever is public.
    NewApi,
}

impl Forbid {
    pub const ALL: [Forbid; 15] = [
        Forbid::Arc,
        Forbid::Mutex,
        Forbid::TokioSpawn,
        Forbid::Static,
        Forbid::Send,
        Forbid::Sync,
        Forbid::Unsafe,
        Forbid::StaticItem,
        Forbid::Leak,
        Forbid::Transmute,
        Forbid::Forget,
        Forbid::Atomics,
        Forbid::HeldBorrow,
        Forbid::SystemAlloc,
        Forbid::Channels,
    ];

    /// What every lab forbids unless its `[package.metadata.lab.allow]` says why not.
    pub const DEFAULT: [Forbid; 8] = [
        Forbid::Mutex,
        Forbid::Unsafe,
        Forbid::StaticItem,
        Forbid::Leak,
        Forbid::Transmute,
        Forbid::Forget,
        Forbid::Atomics,
        Forbid::HeldBorrow,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Forbid::Arc => "Arc",
            Forbid::Mutex => "Mutex",
            Forbid::TokioSpawn => "tokio::spawn",
            Forbid::Static => "'static",
            Forbid::Send => "Send",
            Forbid::Sync => "Sync",
            Forbid::Unsafe => "unsafe",
            Forbid::StaticItem => "static",
            Forbid::Leak => "Box::leak",
            Forbid::Transmute => "mem::transmute",
            Forbid::Forget => "mem::forget",
            Forbid::Atomics => "atomics",
            Forbid::HeldBorrow => "RefCell across .await",
            Forbid::SystemAlloc => "alloc::System",
            Forbid::Channels => "channels",
            Forbid::NewDependency => "a new dependency",
            Forbid::ClippyCfg => "cfg(clippy)",
            Forbid::MiriCfg => "cfg(miri)",
            Forbid::GivenCode => "given code",
            Forbid::NewApi => "new API",
        }
    }

    pub fn parse(name: &str) -> Result<Forbid, String> {
        Forbid::ALL
            .into_iter()
            .chain([Forbid::GivenCode, Forbid::MiriCfg, Forbid::NewApi])
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                let known: Vec<String> = Forbid::ALL
                    .iter()
                    .map(|f| format!("\"{}\"", f.name()))
                    .collect();
                format!(
                    "`{name}` is not in the forbid vocabulary ({})",
                    known.join(", ")
                )
            })
    }

    /// "still uses Arc", "still has a Send bound", …
    fn verb(self) -> &'static str {
        match self {
            Forbid::TokioSpawn | Forbid::Leak | Forbid::Transmute | Forbid::Forget => "still calls",
            Forbid::Send | Forbid::Sync => "still has a",
            Forbid::HeldBorrow => "still holds a",
            Forbid::StaticItem => "still declares",
            Forbid::GivenCode => "changes the",
            Forbid::NewApi => "adds",
            Forbid::NewDependency => "adds",
            _ => "still uses",
        }
    }

    /// Why the lab wants it gone: the second half of the message.
    pub fn why(self) -> &'static str {
        match self {
            Forbid::Arc => {
                "this lab is about removing it. Borrow what the futures share, or use Rc on one thread."
            }
            Forbid::Mutex => {
                "a lock (under any name) shares state between threads or tasks; this lab keeps each piece of state with one owner. On one thread, Cell or RefCell does the job."
            }
            Forbid::TokioSpawn => {
                "this lab is about not detaching tasks. Join the futures, or use a scope."
            }
            Forbid::Static => {
                "this lab is about removing it. The code must accept data borrowed from its caller."
            }
            Forbid::Send => {
                "this lab is about removing it. Nothing here leaves its thread, so Rc and RefCell data must be accepted."
            }
            Forbid::Sync => {
                "this lab is about removing it. Nothing here is shared between threads, so Cell and RefCell data must be accepted."
            }
            Forbid::Unsafe => {
                "this lab needs no unsafe code. A transmute that makes a borrow look 'static, an unsafe impl Send, or state in an UnsafeCell only hides what the compiler asked for: the code still breaks the rule it stated."
            }
            Forbid::StaticItem => {
                "state in a static or a thread_local! is shared by every call and every test on the thread, and outlives them all; this lab passes state to the code that uses it (a borrow, an Rc, a value the task owns)."
            }
            Forbid::Leak => {
                "a leaked value lives forever, so it looks 'static: memory is lost on every call, and the bound the compiler asked for was dodged, not removed. Borrow it, or share it with Rc."
            }
            Forbid::Transmute => {
                "transmute here only stretches a lifetime or a type the compiler refused; the code that needed it is what the lab asks you to change."
            }
            Forbid::Forget => {
                "a forgotten value is never dropped: what it owns leaks, and a guard's cleanup never runs."
            }
            Forbid::HeldBorrow => {
                "a RefCell borrow alive across an .await is a \"RefCell already borrowed\" panic the first time another task touches the cell meanwhile, on a path the tests may never take: end the borrow before the .await (clippy's await_holding_refcell_ref finds it)."
            }
            Forbid::Atomics => {
                "an atomic is state shared between threads; this lab keeps each counter with the one thread or task that owns it (a Cell on one thread), and brings the results together at the end."
            }
            Forbid::NewDependency => {
                "this lab is about writing it yourself; the crates the starter came with are enough. Remove the line from the lab's Cargo.toml."
            }
            Forbid::ClippyCfg => {
                "code that clippy compiles differently from the compiler hides what the lab checks: remove the cfg."
            }
            Forbid::NewApi => {
                "this lab's public API is fixed: every public item, trait impl and derive is something safe code can call, so it must be sound with any use, and the tests only see the API they were given. Keep helpers private."
            }
            Forbid::GivenCode => {
                "this code is given: the tests rely on it behaving as written, so changing it changes what they measure. Put it back (cargo labs reset NN keeps your files in a backup); your work is elsewhere (see the README)."
            }
            Forbid::MiriCfg => {
                "code that runs one way under Miri and another way in the real tests hides from Miri what it is there to check: remove the cfg."
            }
            Forbid::Channels => {
                "a channel between parts of one function on one thread is a queue (or, with room for one, a lock) under another name: state with one owner needs neither; on one thread a RefCell or a local Vec does the job."
            }
            Forbid::SystemAlloc => {
                "memory from std::alloc::System goes around the allocator the tests count with: allocate through std::alloc (alloc, dealloc), which the tests see."
            }
        }
    }

    /// The types (clippy `disallowed-types`) or functions (`disallowed-methods`) it stands for.
    fn clippy_paths(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Forbid::Arc => (&["std::sync::Arc"], &[]),
            Forbid::Mutex => (
                &[
                    "std::sync::Mutex",
                    "std::sync::RwLock",
                    "std::sync::Condvar",
                    "tokio::sync::Mutex",
                    "tokio::sync::RwLock",
                    "tokio::sync::Semaphore",
                    "tokio::sync::watch::Sender",
                    "tokio::sync::watch::Receiver",
                    "parking_lot::Mutex",
                    "parking_lot::RwLock",
                    "parking_lot::ReentrantMutex",
                    "futures::lock::Mutex",
                    "futures::lock::BiLock",
                ],
                &["tokio::sync::watch::channel"],
            ),
            Forbid::TokioSpawn => (&[], &["tokio::spawn", "tokio::task::spawn"]),
            Forbid::Leak => (
                &[],
                &[
                    "std::boxed::Box::leak",
                    "std::boxed::Box::into_raw",
                    "std::rc::Rc::into_raw",
                    "std::vec::Vec::leak",
                    "std::string::String::leak",
                ],
            ),
            Forbid::Transmute => (&[], &["std::mem::transmute", "std::mem::transmute_copy"]),
            Forbid::Forget => (
                &[],
                &[
                    "std::mem::forget",
                    "std::mem::ManuallyDrop::new",
                    "std::mem::MaybeUninit::new",
                ],
            ),
            Forbid::SystemAlloc => (&["std::alloc::System"], &[]),
            Forbid::Channels => (
                &[
                    "std::sync::mpsc::Sender",
                    "std::sync::mpsc::SyncSender",
                    "std::sync::mpsc::Receiver",
                    "tokio::sync::mpsc::Sender",
                    "tokio::sync::mpsc::UnboundedSender",
                    "tokio::sync::mpsc::Receiver",
                    "tokio::sync::mpsc::UnboundedReceiver",
                    "tokio::sync::broadcast::Sender",
                    "tokio::sync::broadcast::Receiver",
                    "futures::channel::mpsc::Sender",
                    "futures::channel::mpsc::UnboundedSender",
                    "futures::channel::mpsc::Receiver",
                    "futures::channel::mpsc::UnboundedReceiver",
                ],
                &[
                    "std::sync::mpsc::channel",
                    "std::sync::mpsc::sync_channel",
                    "tokio::sync::mpsc::channel",
                    "tokio::sync::mpsc::unbounded_channel",
                    "tokio::sync::broadcast::channel",
                    "futures::channel::mpsc::channel",
                    "futures::channel::mpsc::unbounded",
                ],
            ),
            Forbid::Atomics => (
                &[
                    "std::sync::atomic::AtomicBool",
                    "std::sync::atomic::AtomicI8",
                    "std::sync::atomic::AtomicI16",
                    "std::sync::atomic::AtomicI32",
                    "std::sync::atomic::AtomicI64",
                    "std::sync::atomic::AtomicIsize",
                    "std::sync::atomic::AtomicU8",
                    "std::sync::atomic::AtomicU16",
                    "std::sync::atomic::AtomicU32",
                    "std::sync::atomic::AtomicU64",
                    "std::sync::atomic::AtomicUsize",
                    "std::sync::atomic::AtomicPtr",
                ],
                &[],
            ),
            Forbid::Static
            | Forbid::Send
            | Forbid::Sync
            | Forbid::Unsafe
            | Forbid::StaticItem
            | Forbid::HeldBorrow
            | Forbid::NewDependency
            | Forbid::ClippyCfg
            | Forbid::MiriCfg
            | Forbid::GivenCode
            | Forbid::NewApi => (&[], &[]),
        }
    }

    /// The clippy lints (besides `disallowed-*`) that find it.
    fn clippy_lints(self) -> &'static [&'static str] {
        match self {
            Forbid::HeldBorrow => &["clippy::await_holding_refcell_ref"],
            _ => &[],
        }
    }

    fn by_clippy(self) -> bool {
        let (types, methods) = self.clippy_paths();
        !types.is_empty() || !methods.is_empty() || !self.clippy_lints().is_empty()
    }
}

impl fmt::Display for Forbid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a `forbid` list.
pub fn parse_list(items: &[String]) -> Result<Vec<Forbid>, String> {
    let mut out: Vec<Forbid> = items
        .iter()
        .map(|s| Forbid::parse(s))
        .collect::<Result<_, _>>()?;
    out.sort();
    out.dedup();
    Ok(out)
}

/// Items of the default set a lab allows, each with its reason.
pub type Allowed = Vec<(Forbid, String)>;

/// What a lab forbids: its own `forbid` list and the default set, less what its
/// `[package.metadata.lab.allow]` table allows (each item with the reason, which must be
/// given and may only name an item of the default set that the lab's list does not).
pub fn effective(
    forbid: &[Forbid],
    allow: &BTreeMap<String, String>,
) -> Result<(Vec<Forbid>, Allowed), String> {
    let mut allowed = Vec::new();
    for (name, why) in allow {
        let item = Forbid::parse(name).map_err(|e| format!("allow: {e}"))?;
        if !Forbid::DEFAULT.contains(&item) {
            return Err(format!(
                "allow: `{name}` is not in the default set, so there is nothing to allow \
                 (leave it out of `forbid` instead)"
            ));
        }
        if forbid.contains(&item) {
            return Err(format!(
                "allow: `{name}` is also in the lab's `forbid` list"
            ));
        }
        if why.trim().is_empty() {
            return Err(format!("allow: say why the lab needs `{name}`"));
        }
        allowed.push((item, why.trim().to_owned()));
    }
    let mut all: Vec<Forbid> = forbid
        .iter()
        .chain(Forbid::DEFAULT.iter())
        .copied()
        .filter(|f| !allowed.iter().any(|(a, _)| a == f))
        .collect();
    all.sort();
    all.dedup();
    Ok((all, allowed))
}

/// One place where the learner's code keeps what the lab forbids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    pub item: Forbid,
    /// Relative to the crate's folder, with `/`: "src/lib.rs".
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// What was found, when more precise than the item: "std::sync::RwLock".
    pub found: String,
    /// The source line, trimmed.
    pub code: String,
}

impl Breach {
    /// "src/lib.rs:12 still uses Arc"
    pub fn short(&self) -> String {
        let what = match self.item {
            Forbid::GivenCode => format!("given code `{}`", self.found),
            Forbid::NewApi => format!("public API the starter does not have: `{}`", self.found),
            Forbid::Send if self.code.contains("async_trait") && !self.code.contains("Send") => {
                "Send bound (#[async_trait] without (?Send) makes every future Send)".to_owned()
            }
            Forbid::Send => "Send bound".to_owned(),
            Forbid::Sync => "Sync bound".to_owned(),
            _ if self.found.is_empty() => self.item.name().to_owned(),
            _ => self.found.clone(),
        };
        format!("{}:{} {} {what}", self.file, self.line, self.item.verb())
    }

    /// "src/lib.rs:12 still uses Arc: this lab is about removing it. …"
    pub fn long(&self) -> String {
        format!("{}: {}", self.short(), self.item.why())
    }
}

/// The regions named `given…` (`// ANCHOR: given_simulator` … `// ANCHOR_END: …`) of some
/// source files: name -> (file, line of the anchor, the code without comments or spaces).
fn given_regions(files: &BTreeMap<String, String>) -> BTreeMap<String, (String, usize, String)> {
    let mut found = BTreeMap::new();
    for (file, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let Some(name) = anchor(line, "ANCHOR") else {
                continue;
            };
            if !name.starts_with("given") {
                continue;
            }
            let region: Vec<&str> = lines[n + 1..]
                .iter()
                .take_while(|l| anchor(l, "ANCHOR_END") != Some(name))
                .copied()
                .collect();
            let body = code_only(&region.join("\n"));
            found.insert(name.to_owned(), (format!("src/{file}"), n + 1, body));
        }
    }
    found
}

/// The name of the anchor a line opens (`tag` "ANCHOR") or closes ("ANCHOR_END"): mdBook's
/// `// ANCHOR: name`, which a starter follows with a note for the learner
/// (`// ANCHOR: given_block (given code: …)`).
fn anchor<'l>(line: &'l str, tag: &str) -> Option<&'l str> {
    let rest = line
        .trim()
        .strip_prefix("// ")?
        .strip_prefix(tag)?
        .strip_prefix(':')?;
    rest.split_whitespace().next()
}

/// Source code without its comments, the white space outside string literals, and the
/// commas a layout adds before a closing bracket: two layouts of the same code (rustfmt's,
/// a learner's) come out the same.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            // A string literal, kept as written.
            out.push(c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(chars[i]);
                    i += 1;
                }
                if let Some(&ch) = chars.get(i) {
                    out.push(ch);
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if c.is_whitespace() {
            // Two words stay two: `pub fn` is not `pubfn`.
            let before = out.chars().last();
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if word(before) && word(chars.get(i).copied()) {
                out.push(' ');
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    // `[1, 2, 3,]` is `[1, 2, 3]`.
    let kept: Vec<char> = out.chars().collect();
    kept.iter()
        .enumerate()
        .filter(|&(k, &c)| !(c == ',' && matches!(kept.get(k + 1), Some(']' | ')' | '}'))))
        .map(|(_, &c)| c)
        .collect()
}

/// Where `current` (a crate's `src/` files) no longer has, unchanged, a given region of
/// `reference` (the starter's). Comments and white space may change; the code may not.
pub fn given_changed(
    reference: &BTreeMap<String, String>,
    current: &BTreeMap<String, String>,
) -> Vec<Breach> {
    let theirs = given_regions(current);
    let mut out = Vec::new();
    for (name, (file, line, code)) in given_regions(reference) {
        let (file, line) = match theirs.get(&name) {
            Some((_, _, now)) if *now == code => continue,
            Some((f, l, _)) => (f.clone(), *l),
            None => (file, line),
        };
        out.push(Breach {
            item: Forbid::GivenCode,
            file,
            line,
            column: 1,
            found: name,
            code: String::new(),
        });
    }
    out
}

/// A crate's public surface, as a scan of its source can see it: `pub fn trim`, `pub struct
/// X`, `impl Clone for Recycler`, `derive(Default) for Recycler`, each with its file and line.
fn api_items(files: &BTreeMap<String, String>) -> BTreeMap<String, (String, usize)> {
    let mut found = BTreeMap::new();
    for (file, text) in files {
        let toks = tokens(text);
        let ident = |k: usize| match toks.get(k).map(|t| &t.2) {
            Some(Tok::Ident(w)) => Some(w.as_str()),
            _ => None,
        };
        let punct =
            |k: usize, c: char| matches!(toks.get(k).map(|t| &t.2), Some(Tok::Punct(p)) if *p == c);
        for k in 0..toks.len() {
            let line = toks[k].0;
            let place = (format!("src/{file}"), line);
            // pub [(crate)] KIND NAME
            if ident(k) == Some("pub") {
                let mut j = k + 1;
                if punct(j, '(') {
                    while j < toks.len() && !punct(j, ')') {
                        j += 1;
                    }
                    j += 1;
                }
                while matches!(ident(j), Some("unsafe" | "async" | "const" | "extern")) {
                    j += 1;
                }
                if let (Some(kind), Some(name)) = (ident(j), ident(j + 1))
                    && matches!(
                        kind,
                        "fn" | "struct" | "enum" | "trait" | "type" | "mod" | "static" | "union"
                    )
                {
                    found
                        .entry(format!("pub {kind} {name}"))
                        .or_insert(place.clone());
                }
            }
            // impl[<…>] TRAIT for TYPE
            if ident(k) == Some("impl") {
                let mut j = k + 1;
                if punct(j, '<') {
                    let mut depth = 0;
                    while j < toks.len() {
                        if punct(j, '<') {
                            depth += 1;
                        } else if punct(j, '>') {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        j += 1;
                    }
                    j += 1;
                }
                let mut trait_name = None;
                let mut m = j;
                while m < toks.len() && !punct(m, '{') && !punct(m, ';') {
                    if ident(m) == Some("for") {
                        let ty = (m + 1..toks.len()).find_map(|t| ident(t).filter(|w| *w != "dyn"));
                        if let (Some(tr), Some(ty)) = (trait_name, ty) {
                            found
                                .entry(format!("impl {tr} for {ty}"))
                                .or_insert(place.clone());
                        }
                        break;
                    }
                    if let Some(w) = ident(m) {
                        trait_name = Some(w);
                    }
                    if punct(m, '<') {
                        // The trait's own generics: `Deref<Target = X>` names the trait, not X.
                        let mut depth = 0;
                        while m < toks.len() {
                            if punct(m, '<') {
                                depth += 1;
                            } else if punct(m, '>') {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            m += 1;
                        }
                    }
                    m += 1;
                }
            }
            // #[derive(A, B)] … struct|enum NAME
            if ident(k) == Some("derive") && punct(k + 1, '(') {
                let mut j = k + 2;
                let mut derived = Vec::new();
                while j < toks.len() && !punct(j, ')') {
                    if let Some(w) = ident(j) {
                        derived.push(w);
                    }
                    j += 1;
                }
                let target = (j..toks.len().min(j + 40))
                    .find(|&t| matches!(ident(t), Some("struct" | "enum" | "union")))
                    .and_then(|t| ident(t + 1));
                if let Some(target) = target {
                    for d in derived {
                        found
                            .entry(format!("derive({d}) for {target}"))
                            .or_insert(place.clone());
                    }
                }
            }
        }
    }
    found
}

/// The public items, trait impls and derives of `current` that `reference` (the starter)
/// does not have. An impl or a derive counts only on a public type: a private helper's
/// `Drop` is nobody else's business.
pub fn new_api(
    reference: &BTreeMap<String, String>,
    current: &BTreeMap<String, String>,
) -> Vec<Breach> {
    let had = api_items(reference);
    let now = api_items(current);
    let public: Vec<String> = now
        .keys()
        .filter_map(|k| k.strip_prefix("pub "))
        .filter_map(|k| k.split_whitespace().nth(1))
        .map(str::to_owned)
        .collect();
    let on_public = |item: &str| {
        item.starts_with("pub ")
            || item
                .rsplit(' ')
                .next()
                .is_some_and(|ty| public.iter().any(|p| p == ty))
    };
    now.into_iter()
        .filter(|(item, _)| !had.contains_key(item) && on_public(item))
        .map(|(item, (file, line))| Breach {
            item: Forbid::NewApi,
            file,
            line,
            column: 1,
            found: item,
            code: String::new(),
        })
        .collect()
}

/// The crates `manifest`'s `[dependencies]` names beyond `allowed`, as breaches of
/// the lab's lesson (with the line of Cargo.toml that names each).
pub fn new_dependencies(crate_dir: &Path, allowed: &[String]) -> Result<Vec<Breach>, String> {
    let path = crate_dir.join("Cargo.toml");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let manifest: toml::Table = text
        .parse()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut found = Vec::new();
    for name in crate::labs::dependency_names(&manifest) {
        if allowed.contains(&name) {
            continue;
        }
        let (line, code) = text
            .lines()
            .enumerate()
            .find(|(_, l)| {
                let l = l.trim_start();
                l.starts_with(&format!("{name} "))
                    || l.starts_with(&format!("{name}="))
                    || l.starts_with(&format!("{name}."))
            })
            .map(|(n, l)| (n + 1, l.trim().to_owned()))
            .unwrap_or((0, String::new()));
        found.push(Breach {
            item: Forbid::NewDependency,
            file: "Cargo.toml".into(),
            line,
            column: 1,
            found: format!("`{name}`"),
            code,
        });
    }
    Ok(found)
}

/// What a crate must be checked with.
pub struct Lesson<'a> {
    /// Where to run cargo.
    pub workspace: &'a Path,
    pub package: &'a str,
    /// The crate's folder (its `src/` is scanned; paths are shown relative to it).
    pub crate_dir: &'a Path,
    pub target_dir: Option<&'a Path>,
    /// Where the generated clippy.toml goes.
    pub clippy_dir: PathBuf,
    pub forbid: &'a [Forbid],
    /// Every file the compiler read for the library beyond `src/` (cargo's dep-info:
    /// `#[path]` modules elsewhere, `include!`d files, a build script's output).
    pub compiled: &'a [PathBuf],
    /// The lab is judged by Miri too (`miri = true`): `cfg(miri)` is a finding.
    pub miri: bool,
}

impl Lesson<'_> {
    /// Every breach of the forbid list in the code the crate compiles, sorted by place.
    pub fn breaches(&self) -> Result<Vec<Breach>, String> {
        let mut found = Vec::new();
        let mut files = rust_files(&self.crate_dir.join("src"))?;
        for file in self.compiled {
            // Manifests and prose a build may list (clippy tracks Cargo.toml) are not code.
            let prose = file
                .extension()
                .is_some_and(|e| ["toml", "lock", "md"].iter().any(|x| e == *x));
            let known = files.iter().any(|f| same_file(f, file));
            if !known && !prose && file.is_file() {
                files.push(file.clone());
            }
        }
        let uses_clippy = self.forbid.iter().any(|f| f.by_clippy());
        let scanned: Vec<Forbid> = self
            .forbid
            .iter()
            .copied()
            .filter(|f| !f.by_clippy())
            .collect();
        let mut fallback: Vec<Forbid> = Vec::new();
        if uses_clippy {
            match self.clippy()? {
                Some(hits) => found.extend(hits),
                None => {
                    fallback = self
                        .forbid
                        .iter()
                        .copied()
                        .filter(|f| f.by_clippy())
                        .collect()
                }
            }
        }
        for file in files {
            // A file `include_str!` brought in may not be text: nothing to scan there.
            let Ok(text) = fs::read_to_string(&file) else {
                continue;
            };
            let shown = relative(self.crate_dir, &file);
            found.extend(scan(&text, &shown, &scanned));
            if uses_clippy {
                found.extend(scan_cfg(&text, &shown, "clippy", Forbid::ClippyCfg));
            }
            if self.miri {
                found.extend(scan_cfg(&text, &shown, "miri", Forbid::MiriCfg));
            }
            if !fallback.is_empty() {
                found.extend(scan_names(&text, &shown, &fallback));
            }
        }
        found.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        found.dedup_by(|a, b| a.file == b.file && a.line == b.line && a.item == b.item);
        Ok(found)
    }

    /// The clippy.toml for this forbid list.
    fn clippy_toml(&self) -> String {
        let mut types = String::new();
        let mut methods = String::new();
        for item in self.forbid {
            let (t, m) = item.clippy_paths();
            // `allow-invalid`: a path the crate cannot see (tokio in a lab without it)
            // is not an error.
            for path in t {
                types.push_str(&format!(
                    "    {{ path = \"{path}\", reason = \"forbidden: {}\", allow-invalid = true }},\n",
                    item.name()
                ));
            }
            for path in m {
                methods.push_str(&format!(
                    "    {{ path = \"{path}\", reason = \"forbidden: {}\", allow-invalid = true }},\n",
                    item.name()
                ));
            }
        }
        format!(
            "# Generated by `cargo labs` from the lab's `forbid` list; rewritten on every check.\n\
             disallowed-types = [\n{types}]\ndisallowed-methods = [\n{methods}]\n"
        )
    }

    /// Runs clippy with the generated configuration; `None` if clippy is not available.
    fn clippy(&self) -> Result<Option<Vec<Breach>>, String> {
        let text = self.clippy_toml();
        // One folder per content, written once (to a temporary name, then renamed): clippy
        // tracks the file, so a new mtime would make cargo lint the crate again on every
        // check, and two checks at once (a board and a watch) must never see it half written.
        let dir = self.clippy_dir.join(format!("{:016x}", {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut h);
            h.finish()
        }));
        let config = dir.join("clippy.toml");
        if fs::read_to_string(&config).ok().as_deref() != Some(text.as_str()) {
            fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let partial = dir.join(format!("clippy.toml.{}", std::process::id()));
            fs::write(&partial, &text).map_err(|e| format!("{}: {e}", partial.display()))?;
            fs::rename(&partial, &config).map_err(|e| format!("{}: {e}", config.display()))?;
        }
        let mut cmd = cargo();
        cmd.current_dir(self.workspace)
            .env("CLIPPY_CONF_DIR", &dir)
            .args(["clippy", "--quiet", "--package", self.package, "--lib"])
            .arg("--message-format=json");
        if let Some(dir) = self.target_dir {
            cmd.arg("--target-dir").arg(dir);
        }
        cmd.args([
            "--",
            "--force-warn",
            "clippy::disallowed_types",
            "--force-warn",
            "clippy::disallowed_methods",
        ]);
        for item in self.forbid {
            for lint in item.clippy_lints() {
                cmd.args(["--force-warn", lint]);
            }
        }
        let out = cmd
            .output()
            .map_err(|e| format!("could not run cargo clippy: {e}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut any_message = false;
        let mut hits = Vec::new();
        for line in stdout.lines() {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if msg["reason"] != "compiler-message" {
                continue;
            }
            any_message = true;
            let message = &msg["message"];
            let code = message["code"]["code"].as_str().unwrap_or("");
            let linted = self
                .forbid
                .iter()
                .copied()
                .find(|f| f.clippy_lints().contains(&code));
            let item = match message["code"]["code"].as_str() {
                _ if linted.is_some() => (linted.expect("just found"), String::new()),
                Some("clippy::disallowed_types") | Some("clippy::disallowed_methods") => {
                    // "use of a disallowed type `std::sync::Arc`"
                    let text = message["message"].as_str().unwrap_or("");
                    let found = text.split('`').nth(1).unwrap_or("").to_owned();
                    // The configured path itself first; then one of the same crate and
                    // name (clippy may print where an item is defined rather than the
                    // path it was configured by), so that `tokio::sync::mpsc::channel`
                    // is a channel, not the `watch::channel` of the locks.
                    let paths = |f: &Forbid| {
                        let (t, m) = f.clippy_paths();
                        t.iter().chain(m).copied().collect::<Vec<&str>>()
                    };
                    let same_name = |p: &str| {
                        p.rsplit("::").next() == found.rsplit("::").next()
                            && p.split("::").next() == found.split("::").next()
                    };
                    let item = self
                        .forbid
                        .iter()
                        .copied()
                        .find(|f| paths(f).contains(&found.as_str()))
                        .or_else(|| {
                            self.forbid
                                .iter()
                                .copied()
                                .find(|f| paths(f).into_iter().any(same_name))
                        });
                    match item {
                        Some(item) => (item, found),
                        None => continue,
                    }
                }
                _ => continue,
            };
            let Some(span) = message["spans"]
                .as_array()
                .and_then(|s| s.iter().find(|s| s["is_primary"] == true))
            else {
                continue;
            };
            let file = span["file_name"].as_str().unwrap_or("").replace('\\', "/");
            let line_no = span["line_start"].as_u64().unwrap_or(0) as usize;
            let path = self.workspace.join(&file);
            let shown = if path.starts_with(self.crate_dir) {
                relative(self.crate_dir, &path)
            } else {
                file.clone()
            };
            let code = span["text"][0]["text"]
                .as_str()
                .unwrap_or("")
                .trim()
                .to_owned();
            let (item, found) = item;
            let found = short_path(item, &found);
            hits.push(Breach {
                item,
                file: shown,
                line: line_no,
                column: span["column_start"].as_u64().unwrap_or(0) as usize,
                found,
                code,
            });
        }
        if !out.status.success() && !any_message {
            // No clippy (a toolchain without the component), or cargo failed before
            // compiling: fall back to the name scan.
            return Ok(None);
        }
        Ok(Some(hits))
    }
}

/// "std::sync::Arc" -> "Arc"; "tokio::task::spawn" -> "tokio::spawn"; "tokio::sync::RwLock"
/// stays, as it is not literally "Mutex"; "std::sync::atomic::AtomicUsize" -> "AtomicUsize";
/// "std::boxed::Box::leak" -> "Box::leak"; "std::mem::forget" -> "mem::forget".
fn short_path(item: Forbid, found: &str) -> String {
    let last = |n: usize| {
        let parts: Vec<&str> = found.split("::").collect();
        parts[parts.len().saturating_sub(n)..].join("::")
    };
    match item {
        Forbid::Arc => "Arc".into(),
        Forbid::TokioSpawn => "tokio::spawn".into(),
        Forbid::Mutex if found.ends_with("::Mutex") && found.starts_with("std::") => "Mutex".into(),
        Forbid::Atomics => last(1),
        Forbid::Leak | Forbid::Transmute | Forbid::Forget => last(2),
        _ => found.to_owned(),
    }
}

/// `file` relative to `base`, with `/`; both are taken as written, then with `..` resolved
/// (a labs folder given as `labs/../target/x` is still the same folder).
fn relative(base: &Path, file: &Path) -> String {
    let shown = match file.strip_prefix(base) {
        Ok(rest) => rest.to_path_buf(),
        Err(_) => {
            let file = lexical(file);
            file.strip_prefix(lexical(base))
                .map(Path::to_path_buf)
                .unwrap_or(file)
        }
    };
    shown.to_string_lossy().replace('\\', "/")
}

/// `a/b/../c` -> `a/c`, without asking the file system.
pub fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

pub fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    if !dir.is_dir() {
        return Ok(files);
    }
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            files.extend(rust_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A token of code: comments, strings and character literals are skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// `'a`, `'static` (without the quote)
    Lifetime(String),
    Punct(char),
}

/// The code tokens of a Rust source file, each with its line and column (1-based).
pub fn tokens(src: &str) -> Vec<(usize, usize, Tok)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut line_start) = (0, 1, 0);
    let is_ident_start = |c: char| c == '_' || c.is_alphabetic();
    let is_ident = |c: char| c == '_' || c.is_alphanumeric();
    // Advances over chars[i..j], counting lines.
    macro_rules! skip_to {
        ($j:expr) => {{
            let j: usize = $j.min(chars.len());
            for k in i..j {
                if chars[k] == '\n' {
                    line += 1;
                    line_start = k + 1;
                }
            }
            i = j;
        }};
    }
    // The end of a quoted literal opened at `from` (just after the quote), with escapes.
    let quoted_end = |from: usize, quote: char| {
        let mut k = from;
        while k < chars.len() {
            match chars[k] {
                '\\' => k += 2,
                c if c == quote => return k + 1,
                _ => k += 1,
            }
        }
        chars.len()
    };
    // The end of a raw string whose `#`s start at `from`.
    let raw_end = |from: usize| {
        let mut k = from;
        let mut hashes = 0;
        while k < chars.len() && chars[k] == '#' {
            hashes += 1;
            k += 1;
        }
        if k >= chars.len() || chars[k] != '"' {
            return None;
        }
        k += 1;
        while k < chars.len() {
            if chars[k] == '"' && (1..=hashes).all(|h| chars.get(k + h) == Some(&'#')) {
                return Some(k + 1 + hashes);
            }
            k += 1;
        }
        Some(chars.len())
    };
    while i < chars.len() {
        let c = chars[i];
        let col = i - line_start + 1;
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |p| i + p);
            skip_to!(end);
        } else if c == '/' && next == Some('*') {
            let (mut k, mut depth) = (i + 2, 1);
            while k < chars.len() && depth > 0 {
                if chars[k] == '/' && chars.get(k + 1) == Some(&'*') {
                    depth += 1;
                    k += 2;
                } else if chars[k] == '*' && chars.get(k + 1) == Some(&'/') {
                    depth -= 1;
                    k += 2;
                } else {
                    k += 1;
                }
            }
            skip_to!(k);
        } else if c == '"' {
            skip_to!(quoted_end(i + 1, '"'));
        } else if c == '\'' {
            // A character literal ('a', '\n', '\'') or a lifetime ('a, 'static).
            if next == Some('\\') {
                skip_to!(quoted_end(i + 1, '\''));
            } else if next.is_some() && chars.get(i + 2) == Some(&'\'') {
                skip_to!(i + 3);
            } else if next.is_some_and(is_ident_start) {
                let mut k = i + 1;
                while k < chars.len() && is_ident(chars[k]) {
                    k += 1;
                }
                let name: String = chars[i + 1..k].iter().collect();
                out.push((line, col, Tok::Lifetime(name)));
                skip_to!(k);
            } else {
                out.push((line, col, Tok::Punct(c)));
                skip_to!(i + 1);
            }
        } else if is_ident_start(c) {
            let mut k = i;
            while k < chars.len() && is_ident(chars[k]) {
                k += 1;
            }
            let word: String = chars[i..k].iter().collect();
            let after = chars.get(k).copied();
            match (word.as_str(), after) {
                ("r" | "br" | "cr", Some('#' | '"')) => match raw_end(k) {
                    Some(end) => skip_to!(end),
                    // `r#ident`: a raw identifier.
                    None => {
                        let mut e = k + 1;
                        while e < chars.len() && is_ident(chars[e]) {
                            e += 1;
                        }
                        let name: String = chars[k + 1..e].iter().collect();
                        out.push((line, col, Tok::Ident(name)));
                        skip_to!(e);
                    }
                },
                ("b" | "c", Some('"')) => skip_to!(quoted_end(k + 1, '"')),
                ("b", Some('\'')) => skip_to!(quoted_end(k + 1, '\'')),
                _ => {
                    out.push((line, col, Tok::Ident(word)));
                    skip_to!(k);
                }
            }
        } else if c.is_ascii_digit() {
            let mut k = i;
            while k < chars.len() && (is_ident(chars[k]) || chars[k] == '.') {
                // `1..n`: stop at a range.
                if chars[k] == '.' && chars.get(k + 1) == Some(&'.') {
                    break;
                }
                k += 1;
            }
            skip_to!(k);
        } else {
            if !c.is_whitespace() {
                out.push((line, col, Tok::Punct(c)));
            }
            skip_to!(i + 1);
        }
    }
    out
}

/// The syntax items (`'static`, `Send` and `#[async_trait]`'s default, `Sync`, `unsafe`,
/// `static`, `thread_local!`) of `forbid` in one file.
pub fn scan(text: &str, file: &str, forbid: &[Forbid]) -> Vec<Breach> {
    let wanted: BTreeSet<Forbid> = forbid.iter().copied().collect();
    let lines: Vec<&str> = text.lines().collect();
    let toks = tokens(text);
    let mut out = Vec::new();
    for (n, (line, column, tok)) in toks.iter().enumerate() {
        let item = match tok {
            Tok::Lifetime(l) if l == "static" && wanted.contains(&Forbid::Static) => Forbid::Static,
            // `#[async_trait(?Send)]` says "need not be Send": that is the lesson, not a
            // breach. Only there: a macro of the learner's could take `?Send` and drop the `?`.
            Tok::Ident(w)
                if w == "Send"
                    && wanted.contains(&Forbid::Send)
                    && !question_send_of_async_trait(&toks, n) =>
            {
                Forbid::Send
            }
            // async-trait's attribute adds `+ Send` to every future it writes unless its
            // arguments are exactly `?Send`: `#[async_trait]`, `#[async_trait()]`, and the
            // attribute renamed on import (`use async_trait::async_trait as remote`), which
            // would hide the rest from this scan.
            Tok::Ident(w)
                if w == "async_trait"
                    && wanted.contains(&Forbid::Send)
                    && async_trait_sends(&toks, n) =>
            {
                Forbid::Send
            }
            Tok::Ident(w) if w == "Sync" && wanted.contains(&Forbid::Sync) => Forbid::Sync,
            Tok::Ident(w) if w == "unsafe" && wanted.contains(&Forbid::Unsafe) => Forbid::Unsafe,
            Tok::Ident(w) if w == "static" && wanted.contains(&Forbid::StaticItem) => {
                Forbid::StaticItem
            }
            Tok::Ident(w)
                if w == "thread_local"
                    && wanted.contains(&Forbid::StaticItem)
                    && matches!(toks.get(n + 1).map(|t| &t.2), Some(Tok::Punct('!'))) =>
            {
                Forbid::StaticItem
            }
            _ => continue,
        };
        out.push(Breach {
            item,
            file: file.to_owned(),
            line: *line,
            column: *column,
            found: String::new(),
            code: lines.get(line - 1).unwrap_or(&"").trim().to_owned(),
        });
    }
    out
}

/// Is the `Send` at `toks[n]` the `?Send` of `async_trait(?Send)`?
fn question_send_of_async_trait(toks: &[(usize, usize, Tok)], n: usize) -> bool {
    let at = |k: Option<usize>| k.and_then(|k| toks.get(k)).map(|t| &t.2);
    at(n.checked_sub(1)) == Some(&Tok::Punct('?'))
        && at(n.checked_sub(2)) == Some(&Tok::Punct('('))
        && at(n.checked_sub(3)) == Some(&Tok::Ident("async_trait".into()))
}

/// Is the `async_trait` at `toks[n]` the attribute in its `Send` mode, or a renamed import?
fn async_trait_sends(toks: &[(usize, usize, Tok)], n: usize) -> bool {
    let at = |k: usize| toks.get(k).map(|t| &t.2);
    let punct = |k: usize, c: char| at(k) == Some(&Tok::Punct(c));
    let ident = |k: usize, w: &str| matches!(at(k), Some(Tok::Ident(x)) if x == w);
    // `async_trait::…` is a path to the macro, not the macro: look at what follows it.
    if punct(n + 1, ':') {
        return false;
    }
    // `use async_trait::async_trait as other;` (or `{async_trait as other}`)
    if ident(n + 1, "as") {
        return true;
    }
    // Inside an attribute: `async_trait]` or `async_trait(ARGS)]`, where only `?Send` is fine.
    if punct(n + 1, ']') {
        return true;
    }
    if punct(n + 1, '(') {
        let question_send_close = punct(n + 2, '?') && ident(n + 3, "Send") && punct(n + 4, ')');
        return !question_send_close;
    }
    false
}

/// `cfg(clippy)`, `cfg_attr(clippy, …)`, `cfg!(clippy)` (or `miri`): code that clippy or
/// Miri sees otherwise than the compiler, which would hide a forbidden type from clippy or
/// undefined behaviour from Miri. (`clippy::lint` paths in `#[allow]` are fine.)
fn scan_cfg(text: &str, file: &str, name: &str, item: Forbid) -> Vec<Breach> {
    let lines: Vec<&str> = text.lines().collect();
    let toks = tokens(text);
    let mut out = Vec::new();
    for (n, (line, column, tok)) in toks.iter().enumerate() {
        if *tok != Tok::Ident(name.into())
            || matches!(toks.get(n + 1).map(|t| &t.2), Some(Tok::Punct(':')))
        {
            continue;
        }
        out.push(Breach {
            item,
            file: file.to_owned(),
            line: *line,
            column: *column,
            found: String::new(),
            code: lines.get(line - 1).unwrap_or(&"").trim().to_owned(),
        });
    }
    out
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// The source files of a dep-info file (`target/debug/deps/NAME-HASH.d`): after the first
/// line (`target: dep dep …`), each dependency on a line of its own, ending in `:`.
pub fn dep_info_files(text: &str) -> Vec<PathBuf> {
    text.lines()
        .skip(1)
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.strip_suffix(':'))
        .map(|p| PathBuf::from(p.replace("\\ ", " ").replace("\\#", "#")))
        .collect()
}

/// Without clippy: `Arc`, locks, atomics and the forbidden functions by name.
fn scan_names(text: &str, file: &str, forbid: &[Forbid]) -> Vec<Breach> {
    let lines: Vec<&str> = text.lines().collect();
    let toks = tokens(text);
    let ident = |k: usize| match toks.get(k).map(|t| &t.2) {
        Some(Tok::Ident(w)) => Some(w.as_str()),
        _ => None,
    };
    let colons = |k: usize| {
        k >= 2
            && matches!(toks[k - 1].2, Tok::Punct(':'))
            && matches!(toks[k - 2].2, Tok::Punct(':'))
    };
    let mut out = Vec::new();
    for (k, (line, column, _)) in toks.iter().enumerate() {
        let item = match ident(k) {
            Some("Arc") => Forbid::Arc,
            Some("Mutex" | "RwLock" | "Condvar" | "BiLock") => Forbid::Mutex,
            Some("watch") if matches!(toks.get(k + 1).map(|t| &t.2), Some(Tok::Punct(':'))) => {
                Forbid::Mutex
            }
            Some("spawn") if colons(k) && matches!(ident(k - 3), Some("tokio" | "task")) => {
                Forbid::TokioSpawn
            }
            Some("leak") => Forbid::Leak,
            Some("transmute" | "transmute_copy") => Forbid::Transmute,
            Some("forget") if colons(k) && ident(k - 3) == Some("mem") => Forbid::Forget,
            Some(w) if w.starts_with("Atomic") => Forbid::Atomics,
            _ => continue,
        };
        if !forbid.contains(&item) {
            continue;
        }
        out.push(Breach {
            item,
            file: file.to_owned(),
            line: *line,
            column: *column,
            found: format!("{} (clippy is not installed: found by name)", item.name()),
            code: lines.get(line - 1).unwrap_or(&"").trim().to_owned(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lifetimes_and_idents(src: &str) -> Vec<String> {
        tokens(src)
            .into_iter()
            .filter_map(|(_, _, t)| match t {
                Tok::Ident(w) => Some(w),
                Tok::Lifetime(l) => Some(format!("'{l}")),
                Tok::Punct(_) => None,
            })
            .collect()
    }

    #[test]
    fn skips_comments_strings_and_chars() {
        let src = r##"
// 'static Send in a line comment
/* a /* nested */ 'static block comment */
/// doc: Send
let a = "'static Send \" still a string";
let b = r#"raw 'static "Send" "#;
let c = b"bytes Send";
let d = 'x';
let e = '\'';
let f = b'\\';
fn g<'a>(x: &'a str) {}
"##;
        assert_eq!(
            lifetimes_and_idents(src),
            [
                "let", "a", "let", "b", "let", "c", "let", "d", "let", "e", "let", "f", "fn", "g",
                "'a", "x", "'a", "str"
            ]
        );
    }

    #[test]
    fn finds_static_and_send_bounds_with_their_lines() {
        let src = "use std::fmt; // 'static here is fine\n\
                   pub fn f<T: Send + 'static>(t: T) {}\n\
                   pub fn g(x: impl Future + Send) {}\n\
                   #[async_trait(?Send)]\n\
                   trait T {}\n\
                   const S: &str = \"'static\";\n\
                   struct SendError;\n";
        let found = scan(src, "src/lib.rs", &[Forbid::Static, Forbid::Send]);
        let places: Vec<String> = found.iter().map(Breach::short).collect();
        assert_eq!(
            places,
            [
                "src/lib.rs:2 still has a Send bound",
                "src/lib.rs:2 still uses 'static",
                "src/lib.rs:3 still has a Send bound",
            ]
        );
        assert_eq!(found[0].code, "pub fn f<T: Send + 'static>(t: T) {}");
        assert_eq!(found[1].column, 20);
        // Only what is forbidden is reported.
        assert_eq!(scan(src, "src/lib.rs", &[Forbid::Static]).len(), 1);
    }

    #[test]
    fn finds_sync_and_async_traits_default_send() {
        let src = "#[async_trait]\ntrait A {}\n#[async_trait::async_trait]\ntrait B {}\n\
                   #[async_trait(?Send)]\ntrait C {}\nfn f<T: Sync>(t: T) {}\n\
                   #[async_trait()]\ntrait D {}\nuse async_trait::async_trait as remote;\n\
                   #[async_trait::async_trait(?Send)]\ntrait E {}\nuse async_trait::async_trait;\n";
        let found = scan(src, "src/lib.rs", &[Forbid::Send, Forbid::Sync]);
        let places: Vec<String> = found.iter().map(Breach::short).collect();
        assert_eq!(
            places,
            [
                "src/lib.rs:1 still has a Send bound (#[async_trait] without (?Send) makes every future Send)",
                "src/lib.rs:3 still has a Send bound (#[async_trait] without (?Send) makes every future Send)",
                "src/lib.rs:7 still has a Sync bound",
                "src/lib.rs:8 still has a Send bound (#[async_trait] without (?Send) makes every future Send)",
                "src/lib.rs:10 still has a Send bound (#[async_trait] without (?Send) makes every future Send)",
            ]
        );
    }

    #[test]
    fn a_question_send_counts_only_in_async_traits_attribute() {
        let src = "#[async_trait(?Send)]\ntrait A {}\nmark!(?Send);\n";
        let lines: Vec<usize> = scan(src, "src/lib.rs", &[Forbid::Send])
            .iter()
            .map(|b| b.line)
            .collect();
        assert_eq!(lines, [3]);
        let src = "#[cfg(miri)]\nfn f() {}\nfn g() { if cfg!(not(miri)) {} }\n";
        let lines: Vec<usize> = scan_cfg(src, "src/lib.rs", "miri", Forbid::MiriCfg)
            .iter()
            .map(|b| b.line)
            .collect();
        assert_eq!(lines, [1, 3]);
    }

    #[test]
    fn given_code_is_compared_without_layout_or_comments() {
        assert_eq!(
            code_only("pub fn f(x: [u8; 3]) -> &'static str { // why\n  \"a  b\" /* c */ }"),
            code_only("pub   fn f(\n    x: [u8; 3],\n) -> &'static str {\n    \"a  b\"\n}")
        );
        assert_ne!(code_only("\"a b\""), code_only("\"ab\""));
        assert_ne!(code_only("[1, 2, 3]"), code_only("[1, 2, 4]"));
        assert_ne!(code_only("pub fn"), code_only("pubfn"));
    }

    #[test]
    fn given_regions_are_found_with_or_without_a_note() {
        let files = BTreeMap::from([(
            "lib.rs".to_owned(),
            "// ANCHOR: given_a (given code: keep it as it is)\nconst A: u8 = 1;\n// ANCHOR_END: given_a\n\
             // ANCHOR: given_b\nconst B: u8 = 2;\n// ANCHOR_END: given_b\n// ANCHOR: starter (the book)\nfn f() {}\n"
                .to_owned(),
        )]);
        let found = given_regions(&files);
        let names: Vec<&String> = found.keys().collect();
        assert_eq!(names, ["given_a", "given_b"]);
        assert_eq!(found["given_a"].2, code_only("const A: u8 = 1;"));
        assert_eq!(found["given_b"].1, 4);
    }

    #[test]
    fn new_public_api_is_found() {
        let starter = BTreeMap::from([(
            "lib.rs".to_owned(),
            "#[derive(Default)]\npub struct Recycler { x: u8 }\nimpl Recycler {\n    pub fn new() -> Self { todo!() }\n}\n\
             impl Drop for Recycler { fn drop(&mut self) {} }\n"
                .to_owned(),
        )]);
        let learner = BTreeMap::from([(
            "lib.rs".to_owned(),
            "#[derive(Default, Clone)]\npub struct Recycler { x: u8 }\nimpl Recycler {\n    pub fn new() -> Self { todo!() }\n    pub fn trim(&self) {}\n    fn helper(&self) {}\n}\n\
             impl Drop for Recycler { fn drop(&mut self) {} }\nunsafe impl<T> Sync for Recycler {}\n\
             struct Release;\nimpl Drop for Release { fn drop(&mut self) {} }\n"
                .to_owned(),
        )]);
        let found: Vec<String> = new_api(&starter, &learner)
            .into_iter()
            .map(|b| format!("{}:{}", b.found, b.line))
            .collect();
        assert_eq!(
            found,
            [
                "derive(Clone) for Recycler:1",
                "impl Sync for Recycler:9",
                "pub fn trim:5"
            ]
        );
        assert!(new_api(&starter, &starter).is_empty());
    }

    #[test]
    fn finds_unsafe_code() {
        let src = "// unsafe in a comment is fine\n\
                   #![deny(unsafe_code)]\n\
                   let f: Job = unsafe { std::mem::transmute(f) };\n\
                   unsafe impl<F> Sync for Wrapper<F> {}\n\
                   const S: &str = \"unsafe\";\n";
        let found = scan(src, "src/lib.rs", &[Forbid::Unsafe]);
        let places: Vec<String> = found.iter().map(Breach::short).collect();
        assert_eq!(
            places,
            [
                "src/lib.rs:3 still uses unsafe",
                "src/lib.rs:4 still uses unsafe"
            ]
        );
        assert!(found[0].long().contains("transmute"));
        assert!(scan(src, "src/lib.rs", &[Forbid::Send, Forbid::Static]).is_empty());
    }

    #[test]
    fn finds_static_items_and_thread_locals() {
        let src = "fn f(x: &'static str) {}\n\
                   static COUNT: u32 = 0;\n\
                   thread_local! { static REPORT: RefCell<u32> = RefCell::new(0); }\n\
                   let thread_local = 1; // a variable of that name is fine\n\
                   const S: &str = \"static\";\n";
        let found = scan(src, "src/lib.rs", &[Forbid::StaticItem]);
        let lines: Vec<usize> = found.iter().map(|b| b.line).collect();
        assert_eq!(lines, [2, 3, 3]);
        assert_eq!(found[0].short(), "src/lib.rs:2 still declares static");
        // `'static` is the lifetime, another item.
        assert_eq!(scan(src, "src/lib.rs", &[Forbid::Static]).len(), 1);
    }

    #[test]
    fn finds_code_that_clippy_sees_otherwise() {
        let src = "#[allow(clippy::disallowed_types)]\n\
                   #[cfg(not(clippy))]\n\
                   use std::sync::Arc as Shared;\n\
                   #[cfg_attr(clippy, allow(unused))]\n\
                   fn f() { if cfg!(clippy) {} }\n";
        let lines: Vec<usize> = scan_cfg(src, "src/lib.rs", "clippy", Forbid::ClippyCfg)
            .iter()
            .map(|b| b.line)
            .collect();
        assert_eq!(lines, [2, 4, 5]);
    }

    #[test]
    fn reads_dep_info() {
        let text = "/t/deps/lab-1.d: /l/src/lib.rs /l/src/my\\ dir/x.rs /elsewhere/y.rs\n\n\
                    /l/src/lib.rs:\n/l/src/my\\ dir/x.rs:\n/elsewhere/y.rs:\n\n\
                    # env-dep:CARGO_PKG_NAME=lab\n";
        assert_eq!(
            dep_info_files(text),
            [
                PathBuf::from("/l/src/lib.rs"),
                PathBuf::from("/l/src/my dir/x.rs"),
                PathBuf::from("/elsewhere/y.rs")
            ]
        );
    }

    #[test]
    fn every_lab_gets_the_default_set_less_what_it_allows_with_a_reason() {
        let none = BTreeMap::new();
        let (all, allowed) = effective(&[Forbid::Arc], &none).unwrap();
        assert!(allowed.is_empty());
        assert_eq!(
            all,
            [
                Forbid::Arc,
                Forbid::Mutex,
                Forbid::Unsafe,
                Forbid::StaticItem,
                Forbid::Leak,
                Forbid::Transmute,
                Forbid::Forget,
                Forbid::Atomics,
                Forbid::HeldBorrow
            ]
        );
        let allow = BTreeMap::from([("unsafe".to_owned(), "the lab is unsafe code".to_owned())]);
        let (all, allowed) = effective(&[], &allow).unwrap();
        assert!(!all.contains(&Forbid::Unsafe) && all.contains(&Forbid::Atomics));
        assert_eq!(
            allowed,
            [(Forbid::Unsafe, "the lab is unsafe code".to_owned())]
        );
        for (name, why, error) in [
            ("unsafe", " ", "say why"),
            ("Arc", "x", "not in the default set"),
            ("Rc", "x", "vocabulary"),
        ] {
            let allow = BTreeMap::from([(name.to_owned(), why.to_owned())]);
            let got = effective(&[], &allow).unwrap_err();
            assert!(got.contains(error), "{name}: {got}");
        }
        let allow = BTreeMap::from([("unsafe".to_owned(), "x".to_owned())]);
        assert!(
            effective(&[Forbid::Unsafe], &allow)
                .unwrap_err()
                .contains("also in the lab's `forbid` list")
        );
    }

    #[test]
    fn raw_identifiers_are_identifiers() {
        assert_eq!(lifetimes_and_idents("r#type Send"), ["type", "Send"]);
    }

    #[test]
    fn finds_names_without_clippy() {
        let src = "use std::sync::Arc;\nfn f() { tokio::spawn(x); scope.spawn(y); tokio::task::spawn(z); }\n";
        let found = scan_names(src, "src/lib.rs", &[Forbid::Arc, Forbid::TokioSpawn]);
        let lines: Vec<(usize, Forbid)> = found.iter().map(|b| (b.line, b.item)).collect();
        assert_eq!(
            lines,
            [
                (1, Forbid::Arc),
                (2, Forbid::TokioSpawn),
                (2, Forbid::TokioSpawn)
            ]
        );
    }

    #[test]
    fn reads_the_vocabulary() {
        let list = parse_list(&[
            "Send".into(),
            "unsafe".into(),
            "Arc".into(),
            "'static".into(),
            "Arc".into(),
            "static".into(),
            "atomics".into(),
        ]);
        assert_eq!(
            list.unwrap(),
            [
                Forbid::Arc,
                Forbid::Static,
                Forbid::Send,
                Forbid::Unsafe,
                Forbid::StaticItem,
                Forbid::Atomics
            ]
        );
        assert!(
            parse_list(&["Rc".into()])
                .unwrap_err()
                .contains("vocabulary")
        );
    }

    #[test]
    fn clippy_config_lists_only_what_is_forbidden() {
        let lesson = Lesson {
            workspace: Path::new("."),
            package: "x",
            crate_dir: Path::new("."),
            target_dir: None,
            clippy_dir: PathBuf::new(),
            forbid: &[
                Forbid::Arc,
                Forbid::TokioSpawn,
                Forbid::Static,
                Forbid::Leak,
            ],
            compiled: &[],
            miri: false,
        };
        let toml = lesson.clippy_toml();
        assert!(toml.contains("std::sync::Arc") && toml.contains("tokio::task::spawn"));
        assert!(toml.contains("std::boxed::Box::leak"));
        assert!(!toml.contains("Mutex"));
        toml.parse::<toml::Table>().expect("valid TOML");
    }
}
