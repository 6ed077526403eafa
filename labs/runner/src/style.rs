//! How output looks. Colour on a terminal that shows it; plain text in pipes and CI.
//! `--plain` or `NO_COLOR` (https://no-color.org) ask for plain mode, for projectors and
//! screen readers: no colour, no line-drawing characters, no aligned columns, and every
//! finding (an error, a failing test, a breach of the lesson) on one line of its own.
//! On Windows, colour needs the console's virtual-terminal mode: the runner turns it on,
//! and prints no colour codes where that fails (an old console) unless a terminal that
//! understands them (mintty, Windows Terminal through a pipe) says so with `TERM`.

use std::io::IsTerminal;
use std::sync::OnceLock;

static PLAIN: OnceLock<bool> = OnceLock::new();
static COLOUR: OnceLock<bool> = OnceLock::new();

/// Chooses the mode once, before any output: `--plain` on the command line, or NO_COLOR
/// set to anything but the empty string, or TERM=dumb.
pub fn init(plain_flag: bool) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let _ = PLAIN.set(plain_flag || no_color || dumb);
}

/// Plain mode: one finding per line, no colour, no drawing characters.
pub fn plain() -> bool {
    *PLAIN.get_or_init(|| false)
}

fn colour() -> bool {
    *COLOUR.get_or_init(|| !plain() && std::io::stdout().is_terminal() && ansi_supported())
}

#[cfg(not(windows))]
fn ansi_supported() -> bool {
    true
}

/// Turns on the console's virtual-terminal processing, so ANSI colour codes are shown
/// as colour (Windows 10 and later); false where the console refuses.
#[cfg(windows)]
fn ansi_supported() -> bool {
    use std::os::windows::io::AsRawHandle;
    const ENABLE_VIRTUAL_TERMINAL_PROCESSING: u32 = 0x0004;
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetConsoleMode(console: *mut core::ffi::c_void, mode: *mut u32) -> i32;
        fn SetConsoleMode(console: *mut core::ffi::c_void, mode: u32) -> i32;
    }
    let handle = std::io::stdout().as_raw_handle();
    let mut mode = 0u32;
    // SAFETY: `handle` is this process's stdout handle, valid for the whole run, and
    // `mode` is a valid place for GetConsoleMode to write to.
    if unsafe { GetConsoleMode(handle, &mut mode) } == 0 {
        // Not a console (mintty and other terminals are pipes): trust TERM.
        return std::env::var_os("TERM").is_some_and(|t| t != "dumb");
    }
    mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0
        // SAFETY: as above; SetConsoleMode only reads its arguments.
        || unsafe { SetConsoleMode(handle, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) } != 0
}

fn paint(code: &str, text: &str) -> String {
    if colour() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

pub fn green(text: &str) -> String {
    paint("32", text)
}
pub fn red(text: &str) -> String {
    paint("31", text)
}
pub fn yellow(text: &str) -> String {
    paint("33", text)
}
pub fn bold(text: &str) -> String {
    paint("1", text)
}
pub fn dim(text: &str) -> String {
    paint("2", text)
}

/// A heading: underlined with a rule, or on its own line in plain mode.
pub fn heading(text: &str) -> String {
    if plain() {
        text.to_owned()
    } else {
        format!("{}\n{}", bold(text), dim(&"─".repeat(text.chars().count())))
    }
}

/// Clears a terminal before `watch` prints a fresh result; not in a pipe, nor in plain
/// mode (a screen reader would lose what it was reading).
pub fn clear_screen() {
    if colour() {
        print!("\x1b[2J\x1b[H");
    }
}
