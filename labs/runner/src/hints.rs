//! Hints live in each lab's hints.md, one `<details>` block each: out of README.md, so
//! reading the task in a terminal does not show them all at once, and folded on the web
//! (the lab page includes the file). `cargo labs hint NN` reveals them one at a time;
//! how many were revealed is kept in the target directory, so `cargo clean` resets it.

use std::fs;
use std::path::Path;

use crate::labs::{Lab, Paths};
use crate::style;

pub struct Hint {
    pub title: String,
    pub body: String,
}

/// The hints of a hints.md, in order.
pub fn parse(text: &str) -> Vec<Hint> {
    text.split("<details>")
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
    let file = lab.dir.join("hints.md");
    let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let hints = parse(&text);
    if hints.is_empty() {
        return Err(format!(
            "{} has no hints (<details><summary>Hint 1: …</summary> … </details> blocks)",
            file.display()
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
    fn reads_hints_in_order() {
        let text = "<details>\n<summary>Hint 1: first</summary>\n\nOne.\n</details>\n\n\
                    <details><summary>Hint 2: second</summary>\nTwo.\n</details>\n";
        let hints = parse(text);
        assert_eq!(hints.len(), 2);
        assert_eq!(strip_prefix(&hints[0].title), "first");
        assert_eq!(hints[1].body, "Two.");
    }
}
