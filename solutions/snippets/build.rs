//! Finds the book's chapters as mdBook wrote them with every {{#include}} expanded
//! (book.toml's [output.markdown], i.e. book/markdown/), and writes one module per
//! chapter whose doc is that chapter: `cargo test --doc` then compiles every `rust`
//! block exactly as readers see it. scripts/test builds the book first and sets
//! BOOK_MARKDOWN; without it, a missing book/markdown yields no doc tests (so a plain
//! `cargo test --workspace` in solutions/ still works) unless BOOK_SNIPPETS_REQUIRED is set.
//!
//! One addition readers never see: a "Check yourself" question whose answer opens with a
//! ```text block (what the program prints) reaches rustdoc with its output captured and
//! compared with that block (`quiz_output` below, and src/quiz.rs).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    println!("cargo::rerun-if-env-changed=BOOK_MARKDOWN");
    println!("cargo::rerun-if-env-changed=BOOK_SNIPPETS_REQUIRED");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let dir = env::var_os("BOOK_MARKDOWN")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../book/markdown"));
    let mut chapters = Vec::new();
    if dir.is_dir() {
        collect(&dir, &mut chapters);
        println!("cargo::rerun-if-changed={}", dir.display());
    } else if env::var_os("BOOK_SNIPPETS_REQUIRED").is_some() {
        panic!(
            "{} does not exist: build the book first (scripts/build-book)",
            dir.display()
        );
    }
    chapters.sort();

    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let mut code = String::new();
    for path in &chapters {
        println!("cargo::rerun-if-changed={}", path.display());
        let relative = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let module: String = relative
            .trim_end_matches(".md")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        // A chapter with "What does this print?" questions is handed over as a rewritten copy.
        let text = fs::read_to_string(path).unwrap();
        let source = match quiz_output(&text) {
            Some(rewritten) => {
                let copy = out_dir.join(format!("chapter_{module}.md"));
                fs::write(&copy, rewritten).unwrap();
                copy
            }
            None => path.clone(),
        };
        writeln!(code, "/// {relative}").unwrap();
        writeln!(
            code,
            "#[doc = include_str!({:?})]",
            source.display().to_string()
        )
        .unwrap();
        writeln!(code, "pub mod chapter_{module} {{}}").unwrap();
    }
    fs::write(out_dir.join("chapters.rs"), code).unwrap();
}

fn collect(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, into);
        } else if path.extension().is_some_and(|e| e == "md") {
            into.push(path);
        }
    }
}

/// A fenced block: its info string, its first content line, its closing fence line.
struct Block {
    info: String,
    first: usize,
    close: usize,
}

/// In the page's `## Check yourself` section, finds each question whose answer (the
/// `<summary>Answer</summary>` after it) opens with a ```text block, and rewrites the
/// question's last plain ```rust block: `println!` and `print!` write to
/// `book_snippets::quiz`, the program's `fn main` becomes `quiz_main` (or its lines are
/// wrapped in one), and a new `main` runs it and asserts that it printed exactly the text
/// block. Returns `None` when there is nothing to rewrite. Readers never see this copy.
fn quiz_output(text: &str) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let start = lines
        .iter()
        .position(|l| l.trim_end() == "## Check yourself")?;
    let end = (start + 1..lines.len())
        .find(|&i| {
            lines[i].starts_with("## ")
                || (lines[i].trim() == "<details>"
                    && lines
                        .get(i + 1)
                        .is_some_and(|n| n.contains("Speaker notes")))
        })
        .unwrap_or(lines.len());

    let mut blocks = Vec::new();
    let mut i = start + 1;
    while i < end {
        if let Some(info) = lines[i].strip_prefix("```") {
            let first = i + 1;
            i += 1;
            while i < end && lines[i].trim_end() != "```" {
                i += 1;
            }
            blocks.push(Block {
                info: info.trim().to_string(),
                first,
                close: i,
            });
        }
        i += 1;
    }

    let mut rewrites = Vec::new();
    let mut previous = start;
    for answer in (start..end).filter(|&i| lines[i].trim() == "<summary>Answer</summary>") {
        let question = blocks
            .iter()
            .rfind(|b| b.first > previous && b.close < answer);
        // The answer's first block, if nothing but blank lines stands before it.
        let printed = blocks.iter().find(|b| b.first > answer).filter(|b| {
            b.info == "text" && (answer + 1..b.first - 1).all(|i| lines[i].trim().is_empty())
        });
        if let (Some(question), Some(printed)) = (question, printed)
            && question.info == "rust"
        {
            let expected: String = lines[printed.first..printed.close]
                .iter()
                .map(|l| format!("{l}\n"))
                .collect();
            rewrites.push((question.first, question.close, expected));
        }
        previous = answer;
    }
    if rewrites.is_empty() {
        return None;
    }
    for (first, close, expected) in rewrites.into_iter().rev() {
        let body = &lines[first..close];
        let mut code = vec![
            "macro_rules! println { () => { ::book_snippets::quiz::println(::std::string::String::new()) }; ($($t:tt)*) => { ::book_snippets::quiz::println(::std::format!($($t)*)) }; }".to_string(),
            "#[allow(unused_macros)] macro_rules! print { ($($t:tt)*) => { ::book_snippets::quiz::print(::std::format!($($t)*)) }; }".to_string(),
        ];
        if body.iter().any(|l| l.contains("fn main(")) {
            let mut renamed = false;
            for line in body {
                if !renamed && line.contains("fn main(") {
                    code.push(line.replacen("fn main(", "fn quiz_main(", 1));
                    renamed = true;
                } else {
                    code.push(line.clone());
                }
            }
        } else {
            code.push("fn quiz_main() {".to_string());
            code.extend(body.iter().cloned());
            code.push("}".to_string());
        }
        code.push(format!(
            "fn main() {{ ::book_snippets::quiz::check(quiz_main, {expected:?}); }}"
        ));
        lines.splice(first..close, code);
    }
    Some(lines.join("\n") + "\n")
}
