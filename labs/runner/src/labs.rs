//! Where things are, and what each lab says about itself in its Cargo.toml
//! (`[package.metadata.lab]`: title, page, minutes, and how its starter fails).

use std::fs;
use std::path::{Path, PathBuf};

use crate::lesson::{self, Forbid};

/// The folders the runner works with, derived from where the runner itself lives.
pub struct Paths {
    pub root: PathBuf,
    pub labs: PathBuf,
    pub solutions: PathBuf,
    pub target: PathBuf,
}

impl Paths {
    pub fn locate() -> Paths {
        // `cargo run` (hence `cargo labs`) sets CARGO_MANIFEST_DIR for the program it runs;
        // prefer it to the compile-time path, so a binary built from another checkout
        // never reports on the wrong tree.
        let runner = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
        let labs = runner.parent().expect("labs/").to_path_buf();
        let root = labs.parent().expect("repository root").to_path_buf();
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        Paths {
            solutions: root.join("solutions"),
            labs,
            root,
            target,
        }
    }
}

impl Paths {
    /// target/labs-runner/: what the runner generates (clippy.toml files, hint counters,
    /// wrong-answer crates).
    pub fn runner_dir(&self) -> PathBuf {
        self.target.join("labs-runner")
    }
}

/// How a lab's starter code is meant to fail.
#[derive(Debug, Clone)]
pub enum Expect {
    /// The tests do not compile, with exactly these error codes.
    Errors(Vec<String>),
    /// The tests compile, and exactly these tests fail.
    Fails(Vec<String>),
    /// Every test passes (an alternative solution).
    Pass,
    /// Every test passes, but the code keeps exactly these forbidden items (a wrong
    /// answer whose only fault is the lesson it skips: `//! expect-lesson: Arc`).
    Lesson(Vec<Forbid>),
}

pub struct Lab {
    /// "09-fan-out": the folder name in labs/ and solutions/.
    pub slug: String,
    /// "09"
    pub number: String,
    pub dir: PathBuf,
    pub package: String,
    pub title: String,
    /// The lab's page, relative to the book's src/ ("part3/09-fan-out.md").
    pub page: String,
    pub minutes: u32,
    pub starter: Expect,
    /// What the learner's src/ must no longer use once the tests pass (`forbid`).
    pub forbid: Vec<Forbid>,
}

impl Lab {
    /// The page as served by `scripts/serve`.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:3000/{}",
            self.page.trim_end_matches(".md").to_owned() + ".html"
        )
    }
}

/// Lab folders are exactly those named `NN-slug` (two digits, a dash).
pub fn is_lab_folder(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 3 && b[0].is_ascii_digit() && b[1].is_ascii_digit() && b[2] == b'-'
}

pub fn read_toml(path: &Path) -> Result<toml::Table, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.parse::<toml::Table>()
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn strings(value: Option<&toml::Value>) -> Option<Vec<String>> {
    let items = value?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
    )
}

/// Every lab in `labs_dir`, in reading order.
pub fn discover(labs_dir: &Path) -> Result<Vec<Lab>, String> {
    let mut slugs: Vec<String> = fs::read_dir(labs_dir)
        .map_err(|e| format!("{}: {e}", labs_dir.display()))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| is_lab_folder(name))
        .collect();
    slugs.sort();
    slugs.iter().map(|slug| read_lab(labs_dir, slug)).collect()
}

fn read_lab(labs_dir: &Path, slug: &str) -> Result<Lab, String> {
    let dir = labs_dir.join(slug);
    let manifest = dir.join("Cargo.toml");
    let toml = read_toml(&manifest)?;
    let package = toml.get("package").and_then(|p| p.as_table());
    let name = package.and_then(|p| p.get("name")).and_then(|n| n.as_str());
    let meta = package
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("lab"))
        .and_then(|l| l.as_table())
        .ok_or_else(|| format!("{}: no [package.metadata.lab] table", manifest.display()))?;
    let text = |key: &str| {
        meta.get(key)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
            .ok_or_else(|| {
                format!(
                    "{}: [package.metadata.lab] needs `{key}`",
                    manifest.display()
                )
            })
    };
    let starter = match (
        strings(meta.get("starter-errors")),
        strings(meta.get("starter-fails")),
    ) {
        (Some(codes), None) => Expect::Errors(codes),
        (None, Some(tests)) => Expect::Fails(tests),
        _ => {
            return Err(format!(
                "{}: say how the starter fails, with exactly one of `starter-errors` or `starter-fails`",
                manifest.display()
            ));
        }
    };
    let forbid = lesson::parse_list(&strings(meta.get("forbid")).unwrap_or_default())
        .map_err(|e| format!("{}: forbid: {e}", manifest.display()))?;
    Ok(Lab {
        forbid,
        slug: slug.to_owned(),
        number: slug[..2].to_owned(),
        package: name
            .ok_or_else(|| format!("{}: no package name", manifest.display()))?
            .to_owned(),
        title: text("title")?,
        page: text("page")?,
        minutes: meta
            .get("minutes")
            .and_then(|m| m.as_integer())
            .unwrap_or(0) as u32,
        starter,
        dir,
    })
}

/// Finds a lab by number ("9", "09"), folder name ("09-fan-out") or package ("fan-out").
pub fn find<'a>(labs: &'a [Lab], wanted: &str) -> Result<&'a Lab, String> {
    let number = wanted.parse::<u32>().ok().map(|n| format!("{n:02}"));
    labs.iter()
        .find(|lab| {
            Some(&lab.number) == number.as_ref() || lab.slug == wanted || lab.package == wanted
        })
        .ok_or_else(|| {
            let known: Vec<&str> = labs.iter().map(|l| l.slug.as_str()).collect();
            format!(
                "no lab called `{wanted}`; the labs are: {}",
                known.join(", ")
            )
        })
}
