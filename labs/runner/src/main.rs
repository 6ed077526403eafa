//! `cargo labs`: the progress runner. Run it from labs/ (the alias lives in
//! labs/.cargo/config.toml). Every answer comes from running the labs' tests now;
//! nothing about your progress is stored.
//!
//!   cargo labs                 the board: every lab, done or not, and what to do next
//!   cargo labs check NN        run lab NN's tests and say where it stands
//!   cargo labs hint NN         reveal lab NN's next hint (`--reset` hides them again)
//!   cargo labs watch [NN]      re-check on every save (`--poll` to poll instead)
//!   cargo labs reset NN        put lab NN's src/ back to its starter (keeps a backup)
//!   cargo labs trace NN [TEST] what the executor saw while a test of lab NN ran (its timeline)
//!   cargo labs explain         the errors and panics the book explains (labs/runner/explain.toml)
//!   cargo labs verify [NN]     maintainers: prove starters red, solutions and wrong answers right
//!
//! Options: `--plain` (or NO_COLOR) for projectors and screen readers; `--time-limit SECS`.

mod explain;
mod hints;
mod labs;
mod lesson;
mod outcome;
mod report;
mod reset;
mod style;
mod trace;
mod verify;
mod watch;

use std::process::ExitCode;
use std::time::Duration;

use labs::{Lab, Paths};
use outcome::{Crate, Evaluation};

const USAGE: &str = "\
usage: cargo labs [board]                show every lab and the next one to do
       cargo labs check NN               run lab NN's tests and say where it stands
       cargo labs hint NN [--reset]      reveal lab NN's next hint
       cargo labs watch [NN] [--poll]    re-check on every save
       cargo labs reset NN [--yes]       put lab NN's src/ back to its starter
                                         (your files go to labs/NN-slug/backup/)
       cargo labs trace NN [TEST]        what the executor saw in a test of lab NN, red or green:
                                         every poll, wake-up and waker, and the mistakes named
                                         (--variant solution|wrong/NAME|alt/NAME: another
                                         answer from solutions/; --raw: the file as recorded)
       cargo labs explain                the errors and panics the book explains, and where
       cargo labs verify [NN] [--bless] [--jobs N]
                                         maintainers: prove the lab contract (N checks
                                         at once; default four per core, up to 8, or
                                         LABS_VERIFY_JOBS; LABS_VERIFY_LANES builds)
       cargo labs explain --check        maintainers: the FAQ page agrees with explain.toml
options:
       --plain              no colour, no drawing, one finding per line (also NO_COLOR)
       --time-limit SECS    stop a test binary that runs longer (default 60; also
                            LABS_TIME_LIMIT, or time-limit in a lab's Cargo.toml)";

fn main() -> ExitCode {
    // `cargo labs | head` closes the pipe early: stop quietly instead of panicking.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or("");
        if text.starts_with("failed printing to stdout") {
            std::process::exit(0);
        }
        default_hook(info);
    }));
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{} {message}", style::red("error:"));
            ExitCode::from(2)
        }
    }
}

/// Options that apply to every command.
pub struct Options {
    /// `--time-limit SECS` or `LABS_TIME_LIMIT`: overrides every lab's limit.
    pub time_limit: Option<Duration>,
    /// `verify --jobs N`: how many checks run at once.
    pub jobs: Option<usize>,
    /// `trace --variant solution|wrong/NAME|alt/NAME`: which answer to trace.
    pub variant: Option<String>,
}

fn parse_secs(text: &str, from: &str) -> Result<Duration, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(Duration::from_secs(n)),
        _ => Err(format!(
            "{from}: expected a number of seconds, got `{text}`"
        )),
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    // Options with a value first, then flags and positional arguments.
    let mut options = Options {
        time_limit: match std::env::var("LABS_TIME_LIMIT") {
            Ok(v) if !v.is_empty() => Some(parse_secs(&v, "LABS_TIME_LIMIT")?),
            _ => None,
        },
        jobs: None,
        variant: None,
    };
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if let Some(v) = arg.strip_prefix("--time-limit=") {
            options.time_limit = Some(parse_secs(v, "--time-limit")?);
        } else if arg == "--time-limit" {
            let v = it.next().ok_or("--time-limit needs a number of seconds")?;
            options.time_limit = Some(parse_secs(v, "--time-limit")?);
        } else if arg == "--variant" {
            let v = it
                .next()
                .ok_or("--variant needs solution, wrong/NAME or alt/NAME")?;
            options.variant = Some(v.clone());
        } else if arg == "--jobs" {
            let v = it.next().ok_or("--jobs needs a number")?;
            options.jobs = Some(v.parse().ok().filter(|&n: &usize| n > 0).ok_or(format!(
                "--jobs: expected a number of checks at once, got `{v}`"
            ))?);
        } else {
            rest.push(arg.as_str());
        }
    }
    style::init(rest.contains(&"--plain"));
    let paths = Paths::locate();
    let all = labs::discover(&paths.labs)?;
    let flag = |name: &str| rest.contains(&name);
    let positional: Vec<&str> = rest
        .iter()
        .copied()
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
        "board" | "list" => board(&paths, &options, &all).map(|_| ExitCode::SUCCESS),
        "check" => check(&paths, &options, &all, one(1)?),
        "reset" => reset::reset(one(1)?, flag("--yes")).map(|_| ExitCode::SUCCESS),
        "hint" => hints::reveal(&paths, one(1)?, flag("--reset")).map(|_| ExitCode::SUCCESS),
        "trace" => trace::trace(
            &paths,
            &options,
            one(1)?,
            positional.get(2).copied(),
            &trace::Answer::parse(options.variant.as_deref())?,
            flag("--raw"),
        ),
        "watch" => watch::watch(
            &paths,
            &options,
            &all,
            positional.get(1).copied(),
            flag("--poll"),
        )
        .map(|_| ExitCode::SUCCESS),
        "verify" => {
            let jobs = match options.jobs {
                Some(n) => n,
                None => verify::default_jobs(),
            };
            let started = std::time::Instant::now();
            let rows = verify::verify(&paths, &options, &chosen(1)?, flag("--bless"), jobs)?;
            let failed = rows.iter().filter(|r| !r.ok).count();
            println!(
                "\nverify: {}, {failed} failed, in {:.0} s ({jobs} at a time, {} building)",
                outcome::plural(rows.len(), "check", "checks"),
                started.elapsed().as_secs_f64(),
                verify::lanes().min(jobs)
            );
            println!("slowest: {}", verify::slowest(&rows));
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        "explain" if flag("--check") => {
            let problems = explain::check(&paths)?;
            for p in &problems {
                println!("{p}");
            }
            println!(
                "explain: {} in labs/runner/explain.toml, {}",
                outcome::plural(explain::table()?.entries.len(), "entry", "entries"),
                outcome::plural(problems.len(), "problem", "problems")
            );
            Ok(if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        "explain" => explain::list(&paths).map(|_| ExitCode::SUCCESS),
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}

/// Evaluates a lab as the learner has it now.
pub fn evaluate(paths: &Paths, options: &Options, lab: &Lab) -> Result<Evaluation, String> {
    let starter = reset::starter_sources(lab);
    Crate {
        workspace: &paths.labs,
        package: &lab.package,
        target_dir: None,
        crate_dir: &lab.dir,
        forbid: &lab.forbid,
        allowed_dependencies: lab.allowed_dependencies.as_deref(),
        runner_dir: &paths.runner_dir(),
        time_limit: lab.time_limit(options.time_limit),
        miri: lab.miri.as_ref(),
        given: starter.as_ref(),
        fixed_api: lab.fixed_api,
    }
    .evaluate()
}

fn board(paths: &Paths, options: &Options, all: &[Lab]) -> Result<(), String> {
    println!("{}\n", style::heading("Async Rust Without Arc: labs"));
    let mut next = None;
    let mut done = 0;
    for lab in all {
        let outcome = evaluate(paths, options, lab)?.outcome;
        println!("{}", report::status_line(lab, &outcome));
        if outcome.is_done() {
            done += 1;
        } else if next.is_none() {
            next = Some(lab);
        }
    }
    println!(
        "\n{done} of {} done.",
        outcome::plural(all.len(), "lab", "labs")
    );
    match next {
        Some(lab) => report::print_next(paths, lab),
        None => println!("{}", style::green("Every lab is green. Well done!")),
    }
    Ok(())
}

fn check(paths: &Paths, options: &Options, all: &[Lab], lab: &Lab) -> Result<ExitCode, String> {
    println!(
        "{}",
        style::heading(&format!("Lab {}: {}", lab.number, lab.title))
    );
    let evaluation = evaluate(paths, options, lab)?;
    report::print_lab(paths, lab, &evaluation);
    if evaluation.outcome.is_done() {
        report::print_done(paths, all, lab);
        Ok(ExitCode::SUCCESS)
    } else {
        if style::plain() {
            println!("Task: labs/{}/README.md", lab.slug);
            println!("Stuck? cargo labs hint {}", lab.number);
        } else {
            println!(
                "\nTask: labs/{}/README.md   Stuck? cargo labs hint {}",
                lab.slug, lab.number
            );
        }
        Ok(ExitCode::FAILURE)
    }
}
