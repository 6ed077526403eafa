//! Finds the book's chapters as mdBook wrote them with every {{#include}} expanded
//! (book.toml's [output.markdown], i.e. book/markdown/), and writes one module per
//! chapter whose doc is that chapter: `cargo test --doc` then compiles every `rust`
//! block exactly as readers see it. scripts/test builds the book first and sets
//! BOOK_MARKDOWN; without it, a missing book/markdown yields no doc tests (so a plain
//! `cargo test --workspace` in solutions/ still works) unless BOOK_SNIPPETS_REQUIRED is set.

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
        writeln!(code, "/// {relative}").unwrap();
        writeln!(
            code,
            "#[doc = include_str!({:?})]",
            path.display().to_string()
        )
        .unwrap();
        writeln!(code, "pub mod chapter_{module} {{}}").unwrap();
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("chapters.rs");
    fs::write(out, code).unwrap();
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
