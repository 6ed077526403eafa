//! `cargo labs reset NN`: puts a lab's `src/` back to its starter, after keeping the
//! learner's files in `labs/NN-slug/backup/<date-time>/src/`.
//!
//! Where the starter comes from:
//! 1. git, when the lab is in a git checkout: the version in the last commit that came
//!    from upstream (`git merge-base HEAD @{upstream}`), so commits of your own work do
//!    not count as the starter; `HEAD` when the branch has no upstream.
//! 2. otherwise `labs/NN-slug/.starter/src/`, a pristine copy that a kit without git
//!    (an archive, the offline kit) ships next to the lab.
//!
//! It asks before it changes anything, unless `--yes`.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::labs::Lab;
use crate::style;

/// The starter's files, relative to `src/` with `/`, and where they came from.
struct Starter {
    files: BTreeMap<String, Vec<u8>>,
    from: String,
}

pub fn reset(lab: &Lab, yes: bool) -> Result<(), String> {
    let starter = from_git(lab)?.or_else(|| from_copy(lab)).ok_or_else(|| {
        format!(
            "cannot find the starter of lab {}: labs/{}/ is not in a git checkout, and \
                 there is no pristine copy in labs/{}/.starter/src/. Download the repository \
                 (or the kit) again and copy that lab's src/ from it.",
            lab.number, lab.slug, lab.slug
        )
    })?;
    let src = lab.dir.join("src");
    let current = read_tree(&src)?;
    if current == starter.files {
        println!(
            "Lab {} is already its starter (from {}): nothing to do.",
            lab.number, starter.from
        );
        return Ok(());
    }
    let backup = lab.dir.join("backup").join(timestamp()).join("src");
    let shown_backup = format!(
        "labs/{}/backup/{}/src/",
        lab.slug,
        backup
            .parent()
            .and_then(|p| p.file_name())
            .unwrap_or_default()
            .to_string_lossy()
    );
    let changed: Vec<&str> = current
        .keys()
        .chain(starter.files.keys())
        .filter(|f| current.get(*f) != starter.files.get(*f))
        .map(String::as_str)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let changed: Vec<String> = changed.iter().map(|f| format!("src/{f}")).collect();
    println!(
        "This puts labs/{}/src/ back to its starter, from {}. Files that change: {}.",
        lab.slug,
        starter.from,
        changed.join(", ")
    );
    println!("Your files will be kept in {shown_backup}");
    if !yes && !confirm(&format!("Reset lab {}? [y/N] ", lab.number), &lab.number)? {
        println!("Nothing changed.");
        return Ok(());
    }

    // Keep the learner's files first; only then touch src/.
    for (name, bytes) in &current {
        write(&backup.join(native(name)), bytes)?;
    }
    for name in current.keys() {
        if !starter.files.contains_key(name) {
            let path = src.join(native(name));
            fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    for (name, bytes) in &starter.files {
        if current.get(name) != Some(bytes) {
            write(&src.join(native(name)), bytes)?;
        }
    }
    println!(
        "{} Lab {} is back to its starter. Your version: {shown_backup}",
        style::green("Done."),
        lab.number
    );
    Ok(())
}

fn confirm(question: &str, number: &str) -> Result<bool, String> {
    print!("{question}");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let mut answer = String::new();
    let read = std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| e.to_string())?;
    if read == 0 {
        println!();
        return Err(format!(
            "no answer (stdin is closed): run `cargo labs reset {number} --yes` to reset without asking"
        ));
    }
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES"))
}

/// "lib.rs" or "net/mod.rs" as a path on this OS.
fn native(name: &str) -> PathBuf {
    name.split('/').collect()
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every file under `dir`, by its path relative to `dir` with `/`.
fn read_tree(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut files = BTreeMap::new();
    for file in all_files(dir)? {
        let name = file
            .strip_prefix(dir)
            .unwrap_or(&file)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let bytes = fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        files.insert(name, bytes);
    }
    Ok(files)
}

fn all_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            out.extend(all_files(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}

fn git(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

fn git_text(dir: &Path, args: &[&str]) -> Option<String> {
    git(dir, args).map(|b| String::from_utf8_lossy(&b).trim().to_owned())
}

/// The starter from git, or `None` if the lab is not in a git checkout (or git is missing).
fn from_git(lab: &Lab) -> Result<Option<Starter>, String> {
    let dir = &lab.dir;
    // "labs/09-fan-out/": the lab's path inside the repository, as git spells it.
    let Some(prefix) = git_text(dir, &["rev-parse", "--show-prefix"]) else {
        return Ok(None);
    };
    let (commit, whence) = match git_text(dir, &["merge-base", "HEAD", "@{upstream}"]) {
        Some(base) if !base.is_empty() => {
            let upstream = git_text(dir, &["rev-parse", "--abbrev-ref", "@{upstream}"])
                .unwrap_or_else(|| "upstream".into());
            (base, format!("the last commit from {upstream}"))
        }
        _ => match git_text(dir, &["rev-parse", "HEAD"]) {
            Some(head) => (head, "HEAD".to_owned()),
            None => return Ok(None),
        },
    };
    let src = format!("{prefix}src/");
    let listing =
        git_text(dir, &["ls-tree", "-r", "--name-only", &commit, "--", "src"]).unwrap_or_default();
    let mut files = BTreeMap::new();
    for path in listing.lines().filter(|l| !l.is_empty()) {
        // ls-tree names paths relative to the current folder (the lab's): "src/lib.rs".
        let name = path.strip_prefix("src/").unwrap_or(path).to_owned();
        let spec = format!("{commit}:{src}{name}");
        let bytes = git(dir, &["show", &spec]).ok_or_else(|| format!("git show {spec} failed"))?;
        files.insert(name, bytes);
    }
    if files.is_empty() {
        return Ok(None);
    }
    Ok(Some(Starter {
        files,
        from: format!("git commit {}, {whence}", &commit[..commit.len().min(10)]),
    }))
}

/// The pristine copy a kit without git ships: labs/NN-slug/.starter/src/.
/// The starter's source files as text (for the given-code check), wherever `reset` would
/// take them from; `None` when there is no starter to compare with.
pub fn starter_sources(lab: &Lab) -> Option<BTreeMap<String, String>> {
    let starter = from_git(lab).ok().flatten().or_else(|| from_copy(lab))?;
    Some(
        starter
            .files
            .into_iter()
            .map(|(name, bytes)| (name, String::from_utf8_lossy(&bytes).into_owned()))
            .collect(),
    )
}

/// A crate's `src/` files as text, by path relative to `src/`.
pub fn sources(src: &Path) -> Result<BTreeMap<String, String>, String> {
    Ok(read_tree(src)?
        .into_iter()
        .map(|(name, bytes)| (name, String::from_utf8_lossy(&bytes).into_owned()))
        .collect())
}

fn from_copy(lab: &Lab) -> Option<Starter> {
    let dir = lab.dir.join(".starter").join("src");
    let files = read_tree(&dir).ok()?;
    (!files.is_empty()).then(|| Starter {
        files,
        from: format!("the copy in labs/{}/.starter/src/", lab.slug),
    })
}

/// "2026-11-05_04-40-12" (UTC), a folder name every OS accepts.
fn timestamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}_{:02}-{:02}-{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to a (year, month, day) date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_397), (2025, 11, 5));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
