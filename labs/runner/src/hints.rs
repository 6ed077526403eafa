//! Hints live in each lab's README.md, under `## Hints`, one `<details>` block each
//! (readable on GitHub as they are). `cargo labs hint NN` reveals them one at a time;
//! how many were revealed is kept in the target directory, so `cargo clean` resets it.

use std::fs;
use std::path::Path;

use crate::labs::{Lab, Paths};
use crate::style;

pub struct Hint {
    pub title: String,
    pub body: String,
}

/// The hints of a README, in order.
pub fn parse(readme: &str) -> Vec<Hint> {
    let Some(start) = readme.find("## Hints") else {
        return Vec::new();
    };
    let section = &readme[start..];
    let section = match section[2..].find("\n## ") {
        Some(end) => &section[..end + 2],
        None => section,
    };
    section
        .split("<details>")
        .skip(1)
        .filter_map(|block| {
            let block = block.split("</details>").next()?;
            let (summary, body) = block.split_once("</summary>")?;
            let title = summary.split_once("<summary>")?.1.trim().to_owned();
            Some(Hint {
                title,
                body: body.trim().to_owned(),
            })
        })
        .collect()
}

fn counter(paths: &Paths, lab: &Lab) -> std::path::PathBuf {
    paths
        .target
        .join("labs-runner")
        .join("hints")
        .join(&lab.slug)
}

pub fn reveal(paths: &Paths, lab: &Lab, reset: bool) -> Result<(), String> {
    let readme = lab.dir.join("README.md");
    let text = fs::read_to_string(&readme).map_err(|e| format!("{}: {e}", readme.display()))?;
    let hints = parse(&text);
    if hints.is_empty() {
        return Err(format!(
            "{} has no hints (a `## Hints` section of <details> blocks)",
            readme.display()
        ));
    }
    let file = counter(paths, lab);
    if reset {
        let _ = fs::remove_file(&file);
        println!("Hints for lab {} are hidden again.", lab.number);
        return Ok(());
    }
    let shown: usize = fs::read_to_string(&file)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let shown = (shown + 1).min(hints.len());
    write_counter(&file, shown)?;

    println!(
        "{}",
        style::bold(&format!("Lab {}: {}", lab.number, lab.title))
    );
    for (i, hint) in hints.iter().take(shown).enumerate() {
        let heading = format!(
            "Hint {} of {}: {}",
            i + 1,
            hints.len(),
            strip_prefix(&hint.title)
        );
        let heading = if i + 1 == shown {
            style::yellow(&heading)
        } else {
            style::dim(&heading)
        };
        println!("\n{heading}\n{}", hint.body);
    }
    if shown < hints.len() {
        println!(
            "\n{}",
            style::dim(&format!(
                "Run `cargo labs hint {}` again for the next hint.",
                lab.number
            ))
        );
    } else {
        println!(
            "\n{}",
            style::dim(
                "That was the last hint. The solution page comes right after the lab in the book."
            )
        );
    }
    Ok(())
}

/// "Hint 2: where the Arc comes from" -> "where the Arc comes from"
fn strip_prefix(title: &str) -> &str {
    match title.split_once(':') {
        Some((head, rest)) if head.trim_start().starts_with("Hint") => rest.trim(),
        _ => title,
    }
}

fn write_counter(file: &Path, shown: usize) -> Result<(), String> {
    if let Some(dir) = file.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    fs::write(file, shown.to_string()).map_err(|e| format!("{}: {e}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hints_in_order_and_stops_at_the_next_section() {
        let readme = "# Lab\n## Hints\n<details>\n<summary>Hint 1: first</summary>\n\nOne.\n</details>\n\
                      <details><summary>Hint 2: second</summary>\nTwo.\n</details>\n\
                      ## After\n<details><summary>not a hint</summary>x</details>\n";
        let hints = parse(readme);
        assert_eq!(hints.len(), 2);
        assert_eq!(strip_prefix(&hints[0].title), "first");
        assert_eq!(hints[1].body, "Two.");
    }
}
