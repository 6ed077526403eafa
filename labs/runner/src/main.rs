//! `cargo labs`: the progress runner. Run it from labs/ (the alias lives in
//! labs/.cargo/config.toml). Every answer comes from running the labs' tests now;
//! nothing about your progress is stored.
//!
//!   cargo labs                 the board: every lab, done or not, and what to do next
//!   cargo labs check NN        run lab NN's tests and say where it stands
//!   cargo labs hint NN         reveal lab NN's next hint (`--reset` hides them again)
//!   cargo labs watch [NN]      re-check on every save (`--poll` to poll instead)
//!   cargo labs verify [NN]     maintainers: prove starters red, solutions and wrong answers right

mod hints;
mod labs;
mod lesson;
mod outcome;
mod style;
mod verify;
mod watch;

use std::process::ExitCode;

use labs::{Lab, Paths};
use outcome::{Crate, Outcome};

const USAGE: &str = "\
usage: cargo labs [board]            show every lab and the next one to do
       cargo labs check NN           run lab NN's tests and summarize
       cargo labs hint NN [--reset]  reveal lab NN's next hint
       cargo labs watch [NN] [--poll]  re-check on save
       cargo labs verify [NN] [--bless]  maintainers: prove the lab contract";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{} {message}", style::red("error:"));
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let paths = Paths::locate();
    let all = labs::discover(&paths.labs)?;
    let flag = |name: &str| args.iter().any(|a| a == name);
    let positional: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let chosen = |at: usize| -> Result<Vec<&Lab>, String> {
        match positional.get(at) {
            Some(wanted) => Ok(vec![labs::find(&all, wanted)?]),
            None => Ok(all.iter().collect()),
        }
    };
    let one = |at: usize| -> Result<&Lab, String> {
        let wanted = positional
            .get(at)
            .ok_or(format!("which lab? e.g. `cargo labs {} 09`", positional[0]))?;
        labs::find(&all, wanted)
    };

    match positional.first().copied().unwrap_or("board") {
        "board" | "list" => board(&paths, &all).map(|_| ExitCode::SUCCESS),
        "check" => check(&paths, one(1)?),
        "hint" => hints::reveal(&paths, one(1)?, flag("--reset")).map(|_| ExitCode::SUCCESS),
        "watch" => watch::watch(&paths, &all, positional.get(1).copied(), flag("--poll"))
            .map(|_| ExitCode::SUCCESS),
        "verify" => {
            let rows = verify::verify(&paths, &chosen(1)?, flag("--bless"))?;
            let failed = rows.iter().filter(|r| !r.ok).count();
            println!("\nverify: {} checks, {} failed", rows.len(), failed);
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}

/// Evaluates a lab as the learner has it now.
pub fn evaluate(paths: &Paths, lab: &Lab) -> Result<Outcome, String> {
    Crate {
        workspace: &paths.labs,
        package: &lab.package,
        target_dir: None,
        crate_dir: &lab.dir,
        forbid: &lab.forbid,
        runner_dir: &paths.runner_dir(),
    }
    .evaluate()
}

pub fn status_line(lab: &Lab, outcome: &Outcome) -> String {
    let status = outcome.summary();
    let status = if outcome.is_done() {
        style::green(&status)
    } else {
        style::red(&status)
    };
    format!(
        "  {}  {:<34} {:>3} min  {status}",
        lab.number, lab.title, lab.minutes
    )
}

fn board(paths: &Paths, all: &[Lab]) -> Result<(), String> {
    println!("{}\n", style::bold("Async Rust Without Arc: labs"));
    let mut next = None;
    let mut done = 0;
    for lab in all {
        let outcome = evaluate(paths, lab)?;
        println!("{}", status_line(lab, &outcome));
        if outcome.is_done() {
            done += 1;
        } else if next.is_none() {
            next = Some(lab);
        }
    }
    println!("\n{done} of {} labs done.", all.len());
    match next {
        Some(lab) => print_next(lab),
        None => println!("{}", style::green("Every lab is green. Well done!")),
    }
    Ok(())
}

pub fn print_next(lab: &Lab) {
    println!(
        "\n{} lab {}: {}",
        style::bold("Next:"),
        lab.number,
        lab.title
    );
    println!("  task      labs/{}/README.md", lab.slug);
    println!(
        "  chapter   src/{}  ({} with scripts/serve)",
        lab.page,
        lab.url()
    );
    println!("  check     cargo labs check {}", lab.number);
    println!("  stuck?    cargo labs hint {}", lab.number);
    println!("  or leave  cargo labs watch   running while you edit");
}

/// Where the learner's code still keeps what the lab forbids, and why that matters.
pub fn print_breaches(outcome: &Outcome) {
    let Outcome::BreaksLesson { breaches, .. } = outcome else {
        return;
    };
    println!(
        "\nEvery test passes, but the lab is not done while its code keeps what it teaches you to remove:"
    );
    for breach in breaches {
        println!("  {}", style::red(&breach.long()));
        if !breach.code.is_empty() {
            println!("      {}", style::dim(&breach.code));
        }
    }
}

fn check(paths: &Paths, lab: &Lab) -> Result<ExitCode, String> {
    println!(
        "{}",
        style::bold(&format!("Lab {}: {}", lab.number, lab.title))
    );
    let outcome = evaluate(paths, lab)?;
    match &outcome {
        Outcome::DoesNotCompile { rendered, .. } => print!("\n{rendered}"),
        Outcome::Failing { output, .. } => print!("\n{output}"),
        Outcome::BreaksLesson { .. } | Outcome::Done { .. } => {}
    }
    println!("\n{}", status_line(lab, &outcome));
    print_breaches(&outcome);
    if outcome.is_done() {
        println!(
            "\n{} Run `cargo labs` to see what comes next.",
            style::green("Done!")
        );
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "\nTask: labs/{}/README.md   Stuck? cargo labs hint {}",
            lab.slug, lab.number
        );
        Ok(ExitCode::FAILURE)
    }
}
