//! Where things are, and what each lab says about itself in its Cargo.toml
//! (`[package.metadata.lab]`: title, page, minutes, and how its starter fails).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
        // LABS_DIR points the runner at another labs/ folder (the runner's own tests use a
        // fixture workspace). Otherwise: `cargo run` (hence `cargo labs`) sets
        // CARGO_MANIFEST_DIR for the program it runs; prefer it to the compile-time path,
        // so a binary built from another checkout never reports on the wrong tree.
        let runner = match std::env::var_os("LABS_DIR") {
            Some(labs) => PathBuf::from(labs).join("runner"),
            None => std::env::var_os("CARGO_MANIFEST_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
        };
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
    /// A page of the book online: `book-url` in labs/Cargo.toml's
    /// `[workspace.metadata.labs]`, or else GitHub Pages' address for the repository's
    /// `origin` remote when that is on GitHub; `None` without either (an offline kit).
    pub fn book_url(&self, page: &str) -> Option<String> {
        static BASE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        let base = BASE.get_or_init(|| {
            let configured = read_toml(&self.labs.join("Cargo.toml")).ok().and_then(|t| {
                t.get("workspace")?
                    .get("metadata")?
                    .get("labs")?
                    .get("book-url")?
                    .as_str()
                    .map(str::to_owned)
            });
            configured
                .filter(|u| !u.is_empty())
                .or_else(|| github_pages(&self.root))
        });
        base.as_ref()
            .map(|b| format!("{}/{}", b.trim_end_matches('/'), html(page)))
    }

    /// target/labs-runner/: what the runner generates (clippy.toml files, hint counters,
    /// wrong-answer crates).
    pub fn runner_dir(&self) -> PathBuf {
        self.target.join("labs-runner")
    }
}

/// "https://github.com/owner/repo(.git)" or "git@github.com:owner/repo.git" ->
/// "https://owner.github.io/repo".
fn github_pages(root: &Path) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["remote", "get-url", "origin"])
        .output()
        .ok()?;
    pages_url(String::from_utf8_lossy(&out.stdout).trim())
}

fn pages_url(remote: &str) -> Option<String> {
    let rest = remote
        .strip_prefix("https://github.com/")
        .or_else(|| remote.strip_prefix("git@github.com:"))
        .or_else(|| remote.strip_prefix("ssh://git@github.com/"))?;
    let (owner, repo) = rest.trim_end_matches('/').split_once('/')?;
    let repo = repo.trim_end_matches(".git");
    (!owner.is_empty() && !repo.is_empty() && !repo.contains('/'))
        .then(|| format!("https://{}.github.io/{repo}", owner.to_lowercase()))
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
    /// Every test passes and the lesson is kept, but under Miri a test shows undefined
    /// behaviour, with these words in Miri's report (`//! expect-miri: …`: a lab with
    /// `miri = true`, whose unsafe code can be wrong in ways no test sees).
    Miri(String),
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
    /// What the learner's code must no longer use once the tests pass: the lab's `forbid`
    /// list and the default set ([`Forbid::DEFAULT`]), less what it allows.
    pub forbid: Vec<Forbid>,
    /// Items of the default set the lab allows, each with its reason (`[package.metadata.lab.allow]`).
    pub allowed: Vec<(Forbid, String)>,
    /// The crates the lab's `[dependencies]` may name: the solution's, when solutions/ is
    /// next to labs/. A learner who adds the crate that does the lab's job (futures'
    /// `join` in lab 02, say) has skipped the lesson even if every test passes.
    pub allowed_dependencies: Option<Vec<String>>,
    /// `time-limit` (seconds): a test binary running longer is stopped as hung.
    pub time_limit: Option<Duration>,
    /// `miri = true`: done only once the tests pass under Miri too (the lab's code is
    /// `unsafe`, and the tests cannot see everything it can get wrong).
    pub miri: Option<crate::outcome::Miri>,
    /// `fixed-api = true`: the public items, trait impls and derives of the starter are
    /// all the learner's code may have (an `unsafe` lab's safe API must stay sound).
    pub fixed_api: bool,
    /// `hang-hint`: what usually makes this lab's tests hang, printed when a test binary is
    /// stopped at its time limit (the test's own watchdog message may not have come yet).
    pub hang_hint: Option<String>,
}

/// A test binary still running after this long is stopped (it hangs), unless the lab's
/// `time-limit`, `--time-limit SECS` or `LABS_TIME_LIMIT` says otherwise.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);

impl Lab {
    /// The time limit for this lab's tests: the command line or environment first, then
    /// the lab's Cargo.toml, then the default.
    pub fn time_limit(&self, chosen: Option<Duration>) -> Duration {
        chosen.or(self.time_limit).unwrap_or(DEFAULT_TIME_LIMIT)
    }
}

impl Lab {
    /// A page of the book (relative to src/) as served by `scripts/serve`.
    pub fn url(&self, page: &str) -> String {
        format!("http://127.0.0.1:3000/{}", html(page))
    }

    /// The solution page: the lab page's name with `-solution` ("part3/09-fan-out-solution.md").
    pub fn solution_page(&self) -> String {
        format!("{}-solution.md", self.page.trim_end_matches(".md"))
    }
}

/// "part3/09-fan-out.md" -> "part3/09-fan-out.html"
pub fn html(page: &str) -> String {
    format!("{}.html", page.trim_end_matches(".md"))
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
    let miri = workspace_miri(labs_dir)?;
    slugs
        .iter()
        .map(|slug| read_lab(labs_dir, slug, miri.as_ref()))
        .collect()
}

/// `miri-toolchain` and `miri-flags` in labs/Cargo.toml's `[workspace.metadata.labs]`.
fn workspace_miri(labs_dir: &Path) -> Result<Option<crate::outcome::Miri>, String> {
    let manifest = labs_dir.join("Cargo.toml");
    let toml = read_toml(&manifest)?;
    let meta = toml
        .get("workspace")
        .and_then(|w| w.get("metadata"))
        .and_then(|m| m.get("labs"));
    let get = |key: &str| meta.and_then(|m| m.get(key)).and_then(|v| v.as_str());
    Ok(get("miri-toolchain").map(|toolchain| crate::outcome::Miri {
        toolchain: toolchain.to_owned(),
        flags: get("miri-flags").unwrap_or("").to_owned(),
    }))
}

fn read_lab(
    labs_dir: &Path,
    slug: &str,
    miri: Option<&crate::outcome::Miri>,
) -> Result<Lab, String> {
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
        strings(meta.get("starter-lesson")),
    ) {
        (Some(codes), None, None) => Expect::Errors(codes),
        (None, Some(tests), None) => Expect::Fails(tests),
        (None, None, Some(items)) => Expect::Lesson(
            lesson::parse_list(&items)
                .map_err(|e| format!("{}: starter-lesson: {e}", manifest.display()))?,
        ),
        _ => {
            return Err(format!(
                "{}: say how the starter fails, with exactly one of `starter-errors`, \
                 `starter-fails` or `starter-lesson`",
                manifest.display()
            ));
        }
    };
    let own = lesson::parse_list(&strings(meta.get("forbid")).unwrap_or_default())
        .map_err(|e| format!("{}: forbid: {e}", manifest.display()))?;
    let allow: std::collections::BTreeMap<String, String> = match meta.get("allow") {
        None => Default::default(),
        Some(toml::Value::Table(t)) => t
            .iter()
            .map(|(k, v)| match v.as_str() {
                Some(why) => Ok((k.clone(), why.to_owned())),
                None => Err(format!(
                    "{}: [package.metadata.lab.allow] {k} = \"why the lab needs it\"",
                    manifest.display()
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(format!(
                "{}: [package.metadata.lab.allow] is a table: item = \"why\"",
                manifest.display()
            ));
        }
    };
    let (forbid, allowed) =
        lesson::effective(&own, &allow).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let time_limit = match meta.get("time-limit") {
        None => None,
        Some(v) => Some(Duration::from_secs(
            v.as_integer().filter(|&n| n > 0).ok_or_else(|| {
                format!("{}: time-limit is a number of seconds", manifest.display())
            })? as u64,
        )),
    };
    let solution_manifest = labs_dir
        .parent()
        .map(|root| root.join("solutions").join(slug).join("Cargo.toml"));
    let allowed_dependencies = solution_manifest
        .filter(|m| m.is_file())
        .map(|m| read_toml(&m).map(|t| dependency_names(&t)))
        .transpose()?;
    let miri = match meta.get("miri").and_then(|m| m.as_bool()) {
        Some(true) => Some(miri.cloned().ok_or_else(|| {
            format!(
                "{}: `miri = true`, but labs/Cargo.toml's [workspace.metadata.labs] names no miri-toolchain",
                manifest.display()
            )
        })?),
        _ => None,
    };
    let fixed_api = meta.get("fixed-api").and_then(|m| m.as_bool()) == Some(true);
    let hang_hint = meta
        .get("hang-hint")
        .and_then(|h| h.as_str())
        .map(str::to_owned);
    Ok(Lab {
        hang_hint,
        fixed_api,
        miri,
        forbid,
        allowed,
        allowed_dependencies,
        time_limit,
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

/// The names in a manifest's `[dependencies]`.
pub fn dependency_names(manifest: &toml::Table) -> Vec<String> {
    let mut names: Vec<String> = manifest
        .get("dependencies")
        .and_then(|d| d.as_table())
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_remotes_give_pages_addresses() {
        let want = Some("https://someone.github.io/async-book".to_owned());
        assert_eq!(pages_url("https://github.com/Someone/async-book.git"), want);
        assert_eq!(pages_url("git@github.com:someone/async-book.git"), want);
        assert_eq!(pages_url("https://gitlab.com/someone/async-book"), None);
    }
}
