//! `cargo labs watch`: re-checks a lab each time a file in labs/ is saved (or Enter is
//! pressed). When the lab turns green, its result ("Done", the solution page, the next
//! lab) stays on screen until the next save or Enter; then it goes on to the next lab of
//! the day (see day.rs). Uses the OS's file events (notify); with `--poll`, or where
//! events are not available, it polls every second instead.

use std::io::BufRead;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use notify::{Event, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};

use crate::day::Day;
use crate::labs::{Lab, Paths};
use crate::{Options, evaluate, report, style};

/// What `watch` waits for.
enum Signal {
    Files(notify::Result<Event>),
    /// A line on stdin: Enter pressed.
    Enter,
}

pub fn watch(
    paths: &Paths,
    options: &Options,
    all: &[Lab],
    wanted: Option<&str>,
    poll: bool,
) -> Result<(), String> {
    let day = crate::day::choose(&paths.labs, all, options.only.as_deref())?;
    let (tx, rx) = mpsc::channel::<Signal>();
    // Keep the watcher alive for as long as we watch.
    let _watcher: Box<dyn Watcher> = start(&paths.labs, tx.clone(), poll)?;
    listen_for_enter(tx);

    let mut focus = match wanted {
        Some(w) => Some(crate::labs::find(all, w)?),
        None => None,
    };
    loop {
        let lab = match focus {
            Some(lab) => lab,
            None => match first_unfinished(paths, options, &day)? {
                Some(lab) => lab,
                None => return all_green(&day),
            },
        };
        focus = Some(lab);
        // A file caught mid-save, or cargo failing for a moment, is no reason to stop
        // watching: say so, and try again at the next change.
        let evaluation = match evaluate(paths, options, lab) {
            Ok(evaluation) => evaluation,
            Err(e) => {
                eprintln!("{} {e}", style::red("error:"));
                wait(&rx)?;
                continue;
            }
        };
        style::clear_screen();
        report::print_lab(paths, lab, &evaluation);
        if evaluation.outcome.is_done() {
            let next = day.next_after(lab);
            report::print_done(paths, lab, next, &day);
            if wanted.is_some() {
                return Ok(());
            }
            // The day's last lab: done if every other one is.
            if next.is_none() && first_unfinished(paths, options, &day)?.is_none() {
                println!();
                return all_green(&day);
            }
            // The result stays on screen until the learner moves on.
            let then = match next {
                Some(n) => format!("lab {}", n.number),
                None => "the first lab of the day not done yet".to_owned(),
            };
            println!();
            style::say(&format!(
                "Save a file (or press Enter) to go on to {then}; Ctrl-C to stop."
            ));
            wait(&rx)?;
            focus = next;
            continue;
        }
        let note = format!(
            "Watching labs/ for changes to lab {} (task: labs/{}/README.md, hint: cargo labs hint {}; Enter checks again, Ctrl-C stops)",
            lab.number, lab.slug, lab.number
        );
        if style::plain() {
            style::say(&format!("{note}."));
        } else {
            println!("{}", style::dim(&note));
        }
        wait(&rx)?;
    }
}

fn all_green(day: &Day) -> Result<(), String> {
    let what = if day.is_every_lab() {
        "Every lab is green. Well done!"
    } else {
        "Every lab of the day is green. Well done!"
    };
    println!("{}", style::green(what));
    Ok(())
}

fn start(dir: &Path, tx: mpsc::Sender<Signal>, poll: bool) -> Result<Box<dyn Watcher>, String> {
    let handler = {
        let tx = tx.clone();
        move |event| {
            let _ = tx.send(Signal::Files(event));
        }
    };
    if !poll {
        match RecommendedWatcher::new(handler.clone(), notify::Config::default()) {
            Ok(mut w) => match w.watch(dir, RecursiveMode::Recursive) {
                Ok(()) => return Ok(Box::new(w)),
                Err(e) => eprintln!("file events unavailable ({e}); polling instead"),
            },
            Err(e) => eprintln!("file events unavailable ({e}); polling instead"),
        }
    }
    // notify 8.2's poller keeps each file's modification time in whole seconds, so a save in
    // the same second as the one before it went unseen (scripts/test's watch test caught
    // it once builds got fast); comparing contents sees it. (notify-rs/notify#981 keeps
    // nanoseconds instead, after 8.2.1.)
    let config = notify::Config::default()
        .with_poll_interval(Duration::from_secs(1))
        .with_compare_contents(true);
    let mut w = PollWatcher::new(handler, config).map_err(|e| e.to_string())?;
    w.watch(dir, RecursiveMode::Recursive)
        .map_err(|e| e.to_string())?;
    Ok(Box::new(w))
}

/// Each line read from stdin (Enter in a terminal) is a signal to go on. At the end of
/// stdin (none, or a closed pipe) the thread ends, and only saves count.
fn listen_for_enter(tx: mpsc::Sender<Signal>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            if line.is_err() || tx.send(Signal::Enter).is_err() {
                break;
            }
        }
    });
}

/// Blocks until a Rust or TOML file changes, or Enter is pressed, then lets a burst of
/// saves settle.
fn wait(rx: &mpsc::Receiver<Signal>) -> Result<(), String> {
    let relevant = |event: &Event| {
        event.kind.is_modify() || event.kind.is_create() || event.kind.is_remove()
    } && event.paths.iter().any(|p| p.extension().is_some_and(|e| e == "rs" || e == "toml"));
    loop {
        match rx.recv() {
            Ok(Signal::Files(Ok(event))) if relevant(&event) => break,
            Ok(Signal::Enter) => break,
            Ok(_) => continue,
            Err(_) => return Err("the file watcher stopped".into()),
        }
    }
    // Events that came with this one, or right after (an editor saves in steps).
    while let Ok(signal) = rx.recv_timeout(Duration::from_millis(300)) {
        if matches!(signal, Signal::Enter) {
            break;
        }
    }
    Ok(())
}

fn first_unfinished<'a>(
    paths: &Paths,
    options: &Options,
    day: &Day<'a>,
) -> Result<Option<&'a Lab>, String> {
    for &lab in &day.labs {
        if !evaluate(paths, options, lab)?.outcome.is_done() {
            return Ok(Some(lab));
        }
    }
    Ok(None)
}
