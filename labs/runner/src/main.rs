//! `cargo labs`: the progress runner. Run it from labs/ (the alias lives in
//! labs/.cargo/config.toml). Every answer comes from running the labs' tests now;
//! nothing about your progress is stored.
//!
//!   cargo labs                 the board: every lab, done or not, and what to do next
//!   cargo labs check NN        run lab NN's tests and say where it stands
//!   cargo labs hint NN         reveal lab NN's next hint (`--reset` hides them again)
//!   cargo labs watch [NN]      re-check on every save (`--poll` to poll instead); when a
//!                              lab turns green, wait for the next save (or Enter)
//!   cargo labs reset NN        put lab NN's src/ back to its starter (keeps a backup)
//!   cargo labs trace NN [TEST] what the executor saw while a test of lab NN ran (its timeline)
//!   cargo labs explain         the errors and panics the book explains (labs/runner/explain.toml)
//!   cargo labs verify [NN]     maintainers: prove starters red, solutions and wrong answers right
//!   cargo labs room            instructors: the room board, on the local network (room.rs)
//!
//! Options: `--plain` (or NO_COLOR) for projectors and screen readers; `--time-limit SECS`;
//! `--only DAY|LABS|all` (or LABS_ONLY, or `schedule` in labs/Cargo.toml) for the day's labs.
//! `--room URL --name NAME` to report to the instructor's room board.

mod day;
mod explain;
mod hints;
mod labs;
mod lesson;
mod outcome;
mod report;
mod reset;
mod room;
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
       cargo labs watch [NN] [--poll]    re-check on every save; once a lab is green,
                                         the next save (or Enter) goes on to the next
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
       cargo labs room [--port P] [--code CODE]
                                         instructors: serve the room board on the local
                                         network (a row per attendee, a column per lab)
options:
       --plain              no colour, no drawing, one finding per line, lines wrapped
                            at the terminal's width (also NO_COLOR)
       --only DAY|LABS|all  the labs of the day: a day of labs/schedules.toml (half-day,
                            full-day) or a list (09,11,14); the board shows them, and
                            Next and watch follow them (also LABS_ONLY, or schedule in
                            labs/Cargo.toml's [workspace.metadata.labs])
       --time-limit SECS    stop a test binary that runs longer (default 60; also
                            LABS_TIME_LIMIT, or time-limit in a lab's Cargo.toml)
       --room URL --name NAME [--code CODE]
                            report where your labs stand to the instructor's room board
                            (status, test names, error codes; never code or paths);
                            remembered in target/labs-runner/, --room off stops it";

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
    /// `--only DAY|LABS|all` or `LABS_ONLY`: the labs of the day (see day.rs).
    pub only: Option<String>,
    /// `--room URL`, `--name NAME`, `--code CODE` (joining a room board), and `room`'s own.
    pub room: room::Args,
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
        only: std::env::var("LABS_ONLY")
            .ok()
            .filter(|v| !v.trim().is_empty()),
        room: room::Args::default(),
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
        } else if let Some(v) = arg.strip_prefix("--only=") {
            options.only = Some(v.to_owned());
        } else if arg == "--only" {
            let v = it
                .next()
                .ok_or("--only needs a day (half-day), labs (09,11,14) or all")?;
            options.only = Some(v.clone());
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
        } else if room::Args::takes(arg) {
            let v = it.next().ok_or(format!("{arg} needs a value"))?;
            options.room.set(arg, v);
        } else {
            rest.push(arg.as_str());
        }
    }
    style::init(rest.contains(&"--plain"));
    // `cargo labs --help`, `cargo labs watch --help`: the usage, and nothing else runs.
    if rest.iter().any(|a| matches!(*a, "--help" | "-h" | "help")) {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let paths = Paths::locate();
    let all = labs::discover(&paths.labs)?;
    room::join(&paths, &options.room)?;
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

    let result = match positional.first().copied().unwrap_or("board") {
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
            // The failed checks again, last: a log's tail is often all anyone sees.
            for row in rows.iter().filter(|r| !r.ok) {
                println!("FAILED {}: {}", row.what, row.detail);
            }
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
        "room" => room::serve(&paths, &options.room, &all, options.only.as_deref()),
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    // The last report to a room, if this copy joined one (a moment at most).
    room::finish();
    result
}

/// Evaluates a lab as the learner has it now.
pub fn evaluate(paths: &Paths, options: &Options, lab: &Lab) -> Result<Evaluation, String> {
    let starter = reset::starter_sources(lab);
    let evaluation = Crate {
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
    .evaluate()?;
    room::report(paths, lab, &evaluation);
    Ok(evaluation)
}

fn board(paths: &Paths, options: &Options, all: &[Lab]) -> Result<(), String> {
    let day = day::choose(&paths.labs, all, options.only.as_deref())?;
    println!("{}\n", style::heading("Async Rust Without Arc: labs"));
    if let Some(name) = &day.name {
        let title = day
            .title
            .as_ref()
            .map(|t| format!("{t} ({name})"))
            .unwrap_or(name.clone());
        style::say(&format!(
            "The day: {title}, {} (every lab: cargo labs --only all).\n",
            day.list()
        ));
    }
    // The board names a slow test binary in its line; no "still running" notes meanwhile.
    outcome::set_slow_notes(false);
    let mut next = None;
    let mut done = 0;
    for &lab in &day.labs {
        let outcome = evaluate(paths, options, lab)?.outcome;
        style::say(&report::status_line(lab, &outcome));
        if outcome.is_done() {
            done += 1;
        } else if next.is_none() {
            next = Some(lab);
        }
    }
    let of_the_day = if day.is_every_lab() {
        ""
    } else {
        " of the day"
    };
    println!(
        "\n{done} of {}{of_the_day} done.",
        outcome::plural(day.labs.len(), "lab", "labs")
    );
    match next {
        Some(lab) => report::print_next(paths, lab),
        None if day.is_every_lab() => {
            println!("{}", style::green("Every lab is green. Well done!"))
        }
        None => {
            println!(
                "{}",
                style::green("Every lab of the day is green. Well done!")
            );
            style::say("The other labs: cargo labs --only all");
        }
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
        let day = day::choose(&paths.labs, all, options.only.as_deref())?;
        report::print_done(paths, lab, day.next_after(lab), &day);
        Ok(ExitCode::SUCCESS)
    } else {
        if style::plain() {
            style::say(&format!("Task: labs/{}/README.md", lab.slug));
            style::say(&format!("Stuck? cargo labs hint {}", lab.number));
        } else {
            println!(
                "\nTask: labs/{}/README.md   Stuck? cargo labs hint {}",
                lab.slug, lab.number
            );
        }
        Ok(ExitCode::FAILURE)
    }
}
