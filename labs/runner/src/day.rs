//! The labs of the day. A workshop does some labs, not all: `schedule = "half-day"` in
//! labs/Cargo.toml's `[workspace.metadata.labs]` names one of labs/schedules.toml's days,
//! whose labs are the labs whose pages it lists; `--only` (or `LABS_ONLY`) chooses for one
//! command: a day's name, a list of labs (`09,11,14`), or `all`. The board shows the day's
//! labs, and "Next", `watch` and the "done" message follow them. The same file gives
//! scripts/minutes the day's blocks, breaks and clock times (see labs/schedules.toml).

use std::path::Path;

use crate::labs::{self, Lab, read_toml};

/// The labs a command works through, in reading order.
pub struct Day<'a> {
    /// What chose them: `half-day` (a day of labs/schedules.toml), `09,11,14` (a list), or
    /// `None`: every lab.
    pub name: Option<String>,
    /// A day's title ("Half-day workshop").
    pub title: Option<String>,
    pub labs: Vec<&'a Lab>,
}

/// A day of labs/schedules.toml: its name, its title and the pages it lists, in order.
pub struct Schedule {
    pub name: String,
    pub title: String,
    pub pages: Vec<String>,
}

/// Every day of labs/schedules.toml (none if the file is missing).
pub fn schedules(labs_dir: &Path) -> Result<Vec<Schedule>, String> {
    let file = labs_dir.join("schedules.toml");
    if !file.is_file() {
        return Ok(Vec::new());
    }
    let toml = read_toml(&file)?;
    let mut days = Vec::new();
    for (name, day) in &toml {
        let slots = day
            .get("slot")
            .and_then(|s| s.as_array())
            .ok_or_else(|| format!("{}: [{name}] has no [[{name}.slot]]", file.display()))?;
        let pages = slots
            .iter()
            .filter_map(|slot| slot.get("pages")?.as_array())
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect();
        days.push(Schedule {
            name: name.clone(),
            title: day
                .get("title")
                .and_then(|t| t.as_str())
                .unwrap_or(name)
                .to_owned(),
            pages,
        });
    }
    Ok(days)
}

/// The day a command follows: `only` (`--only`, else `LABS_ONLY`) if given, else the
/// `schedule` labs/Cargo.toml names, else every lab.
pub fn choose<'a>(labs_dir: &Path, all: &'a [Lab], only: Option<&str>) -> Result<Day<'a>, String> {
    let configured = read_toml(&labs_dir.join("Cargo.toml"))?
        .get("workspace")
        .and_then(|w| w.get("metadata"))
        .and_then(|m| m.get("labs"))
        .and_then(|l| l.get("schedule"))
        .and_then(|s| s.as_str())
        .map(str::to_owned);
    let wanted = match only.map(str::trim) {
        Some(w) if !w.is_empty() => w.to_owned(),
        _ => match configured.filter(|s| !s.is_empty()) {
            Some(s) => s,
            None => return Ok(every(all)),
        },
    };
    if wanted == "all" {
        return Ok(every(all));
    }
    let days = schedules(labs_dir)?;
    if let Some(day) = days.iter().find(|d| d.name == wanted) {
        let labs: Vec<&Lab> = all.iter().filter(|l| day.pages.contains(&l.page)).collect();
        if labs.is_empty() {
            return Err(format!(
                "labs/schedules.toml: the day `{wanted}` lists no lab's page"
            ));
        }
        return Ok(Day {
            name: Some(wanted),
            title: Some(day.title.clone()),
            labs,
        });
    }
    let looks_like_labs = wanted
        .split([',', ' '])
        .all(|w| w.is_empty() || w.starts_with(|c: char| c.is_ascii_digit()));
    if !looks_like_labs {
        let names: Vec<&str> = days.iter().map(|d| d.name.as_str()).collect();
        return Err(format!(
            "no day called `{wanted}` in labs/schedules.toml (the days: {}); or give the labs, \
             e.g. --only 09,11,14, or --only all",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ));
    }
    let mut chosen = Vec::new();
    for w in wanted.split([',', ' ']).filter(|w| !w.is_empty()) {
        chosen.push(labs::find(all, w)?.slug.clone());
    }
    Ok(Day {
        name: Some(wanted),
        title: None,
        labs: all.iter().filter(|l| chosen.contains(&l.slug)).collect(),
    })
}

fn every(all: &[Lab]) -> Day<'_> {
    Day {
        name: None,
        title: None,
        labs: all.iter().collect(),
    }
}

impl<'a> Day<'a> {
    /// Every lab, not a day's.
    pub fn is_every_lab(&self) -> bool {
        self.name.is_none()
    }

    /// The day's next lab after `lab`, in reading order (`lab` need not be one of the day's).
    pub fn next_after(&self, lab: &Lab) -> Option<&'a Lab> {
        self.labs.iter().copied().find(|l| l.slug > lab.slug)
    }

    /// "labs 09, 11 and 14"
    pub fn list(&self) -> String {
        let numbers: Vec<&str> = self.labs.iter().map(|l| l.number.as_str()).collect();
        match numbers.as_slice() {
            [] => "no lab".to_owned(),
            [one] => format!("lab {one}"),
            [rest @ .., last] => format!("labs {} and {last}", rest.join(", ")),
        }
    }
}
