//! `cargo labs watch`: re-checks a lab each time a file in labs/ is saved, and moves
//! on to the next lab when it turns green. Uses the OS's file events (notify); with
//! `--poll`, or where events are not available, it polls every second instead.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use notify::{Event, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};

use crate::labs::{Lab, Paths};
use crate::{Options, evaluate, report, style};

pub fn watch(
    paths: &Paths,
    options: &Options,
    all: &[Lab],
    wanted: Option<&str>,
    poll: bool,
) -> Result<(), String> {
    let (tx, rx) = mpsc::channel::<notify::Result<Event>>();
    // Keep the watcher alive for as long as we watch.
    let _watcher: Box<dyn Watcher> = start(&paths.labs, tx, poll)?;

    let mut focus = match wanted {
        Some(w) => Some(crate::labs::find(all, w)?),
        None => None,
    };
    // After a lab turns green, its "done" note (solution page, next lab) stays on
    // screen above the next lab's first result.
    let mut keep_screen = false;
    loop {
        let lab = match focus {
            Some(lab) => lab,
            None => match first_unfinished(paths, options, all)? {
                Some(lab) => lab,
                None => {
                    println!("{}", style::green("Every lab is green. Well done!"));
                    return Ok(());
                }
            },
        };
        focus = Some(lab);
        // A file caught mid-save, or cargo failing for a moment, is no reason to stop
        // watching: say so, and try again at the next change.
        let evaluation = match evaluate(paths, options, lab) {
            Ok(evaluation) => evaluation,
            Err(e) => {
                eprintln!("{} {e}", style::red("error:"));
                wait_for_change(&rx)?;
                continue;
            }
        };
        if !keep_screen {
            style::clear_screen();
        }
        keep_screen = false;
        report::print_lab(paths, lab, &evaluation);
        if evaluation.outcome.is_done() {
            report::print_done(paths, all, lab);
            if wanted.is_some() {
                return Ok(());
            }
            println!();
            focus = None;
            keep_screen = true;
            continue;
        }
        let note = format!(
            "Watching labs/ for changes to lab {} (task: labs/{}/README.md, hint: cargo labs hint {}, Ctrl-C to stop)",
            lab.number, lab.slug, lab.number
        );
        if style::plain() {
            println!("{note}.");
        } else {
            println!("{}", style::dim(&note));
        }
        wait_for_change(&rx)?;
    }
}

fn start(
    dir: &Path,
    tx: mpsc::Sender<notify::Result<Event>>,
    poll: bool,
) -> Result<Box<dyn Watcher>, String> {
    if !poll {
        match RecommendedWatcher::new(tx.clone(), notify::Config::default()) {
            Ok(mut w) => match w.watch(dir, RecursiveMode::Recursive) {
                Ok(()) => return Ok(Box::new(w)),
                Err(e) => eprintln!("file events unavailable ({e}); polling instead"),
            },
            Err(e) => eprintln!("file events unavailable ({e}); polling instead"),
        }
    }
    let config = notify::Config::default().with_poll_interval(Duration::from_secs(1));
    let mut w = PollWatcher::new(tx, config).map_err(|e| e.to_string())?;
    w.watch(dir, RecursiveMode::Recursive)
        .map_err(|e| e.to_string())?;
    Ok(Box::new(w))
}

/// Blocks until a Rust or TOML file changes, then lets a burst of saves settle.
fn wait_for_change(rx: &mpsc::Receiver<notify::Result<Event>>) -> Result<(), String> {
    let relevant = |event: &Event| {
        event.kind.is_modify() || event.kind.is_create() || event.kind.is_remove()
    } && event.paths.iter().any(|p| p.extension().is_some_and(|e| e == "rs" || e == "toml"));
    loop {
        match rx.recv() {
            Ok(Ok(event)) if relevant(&event) => break,
            Ok(_) => continue,
            Err(_) => return Err("the file watcher stopped".into()),
        }
    }
    while rx.recv_timeout(Duration::from_millis(300)).is_ok() {}
    Ok(())
}

fn first_unfinished<'a>(
    paths: &Paths,
    options: &Options,
    all: &'a [Lab],
) -> Result<Option<&'a Lab>, String> {
    for lab in all {
        if !evaluate(paths, options, lab)?.outcome.is_done() {
            return Ok(Some(lab));
        }
    }
    Ok(None)
}
